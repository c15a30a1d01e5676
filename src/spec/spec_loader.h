#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// `--set name=value` pairs, applied to the spec's problem values.
using Overrides = std::vector<std::pair<std::string, std::string>>;

// Reads a spec and checks it (check_spec). A path ending in .json is a T1 tuning-problem file
// (spec/t1_reader.h); anything else is YAML. Every problem is an Error(kSpec) whose message starts
// with "file:line:column: " and says what was expected. The reader checks YAML syntax, unknown
// keys, types and the kernel file; check_spec what the values mean: expressions that do not
// parse or name something undefined, a kernel name that the source does not define, transform
// values, a baseline outside the parameter values.
Spec load_spec(const std::string& path, const Overrides& overrides = {});

// Same, from text (tests); `path` is used in messages and to resolve the kernel file.
Spec parse_spec(const std::string& text, const std::string& path, const Overrides& overrides = {});

}  // namespace gputune
