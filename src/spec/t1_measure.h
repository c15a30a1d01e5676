#pragma once
// What a T1 file asks to be measured: its objective (BAT writes General.Objective and
// General.Minimize), honoured or refused with the reason, and its check where it has none.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gputune/spec.h"
#include "spec/t1_json_locations.h"

namespace gputune {

// gputune minimises a variant's time. An objective of time (minimised) is that; a throughput
// (GFLOPs, GB/s, ...: work over time, maximised) ranks the configs of one problem as time does
// where each does the same work, so it is honoured by minimising time with a warning saying so.
// Anything else (energy, power, a metric the file's own tool computes) and a direction that
// contradicts the objective are Error(kSpec) "file:line:column: ..." at General/Objective or
// General/Minimize.
void read_t1_objective(const nlohmann::json& root, const JsonLocations& where,
                       std::vector<std::string>* warnings);

// A file without an output (no AccessType WriteOnly, no "Output": 1) is timed unchecked, as
// BAT's runners time it, with a warning at its Arguments saying so and how to check it.
void time_unchecked_without_outputs(const JsonLocations& where, Spec* spec);

}  // namespace gputune
