#pragma once
// stage_shared's rule for one access (engine-internal), for the access analysis's report.
#include <string>

#include "engine/access_analysis.h"

namespace gputune::engine {

// What the method's staging rule decides for an uncoalesced access: "staging: stage_shared
// stages it ..." or why it skips or refuses it. `access` is one of `all`, the kernel's accesses.
std::string stage_shared_decision(const ParsedKernel& kernel, const std::vector<Access>& all,
                                  const Access& access);

}  // namespace gputune::engine
