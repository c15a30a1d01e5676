#pragma once
#include <cstdint>
#include <string>

#include "space/problem.h"

namespace gputune {

// "TILE=32,PAD=1" (or a JSON object: {"TILE":32,"PAD":1}) on top of the baseline: the config's
// index. Throws Error(kUsage), naming --config, for an unknown parameter or value or, unless
// `pruned_ok`, a config the space rules out.
uint64_t config_index_of(const Problem& problem, const std::string& assignments,
                         bool pruned_ok = false);

}  // namespace gputune
