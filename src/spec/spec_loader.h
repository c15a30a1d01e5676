#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// `--set name=value` pairs, applied to the spec's problem values.
using Overrides = std::vector<std::pair<std::string, std::string>>;

// Reads and validates a spec. Every problem is an Error(kSpec) whose message starts with
// "file:line:column: " and says what was expected. Checks: YAML syntax, unknown keys, types,
// expressions that do not parse or name something undefined, a missing kernel file, a kernel
// name that the source does not define, a baseline outside the parameter values.
Spec load_spec(const std::string& path, const Overrides& overrides = {});

// Same, from text (tests); `path` is used in messages and to resolve the kernel file.
Spec parse_spec(const std::string& text, const std::string& path, const Overrides& overrides = {});

}  // namespace gputune
