#pragma once
// The grid of a T1 file that gives ProblemSize with grid divisors (GridDivX, GridDivY), as BAT's
// runners launch it: Kernel Tuner's problem_size with grid_div_x/y.
#include <optional>
#include <string>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// Axis d of the grid: ceil(problem / (divisor_0 * divisor_1 ...)); no divisors: problem itself.
std::string divided_grid(const std::string& problem, const std::vector<std::string>& divisors);

// `expressions` evaluated at the spec's problem values and its baseline (each parameter's
// Default, else its first value); nullopt where one cannot be evaluated there.
std::optional<std::vector<double>> at_baseline(const Spec& spec,
                                               const std::vector<ExprText>& expressions);

}  // namespace gputune
