#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// True for a spec path that names a T1 tuning-problem file (the JSON format shared by BAT, KTT
// and Kernel Tuner): one ending in .json.
bool is_t1_path(const std::string& path);

// Reads a T1 tuning problem into a Spec and checks it (check_spec), as the YAML loader does.
// `overrides` (--set) apply to the problem values the file defines: ProblemSize, or
// ProblemSize_0, ProblemSize_1, ... for a list (written ProblemSize[0] in expressions).
// Errors are Error(kSpec) "file:line:column: ..." naming what was expected; a T1 feature
// gputune cannot map is refused with what to do instead.
Spec parse_t1_spec(const std::string& text, const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& overrides = {});

}  // namespace gputune
