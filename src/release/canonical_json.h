#pragma once
// docs/release-format.md: every JSON column of a release holds keys in sorted order and numbers
// as the config codec writes them, so that equal values are equal text.
#include <string>

namespace gputune {

// A config's JSON with its members sorted by name; throws Error(kDb) for text that is no object.
std::string canonical_config_json(const std::string& config_json);
// Problem values' JSON with the names sorted.
std::string canonical_problem_json(const std::string& problem_json);

}  // namespace gputune
