#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/remedy.h"
#include "gputune/measurement.h"

namespace gputune {

// What hardware counters say about one measured variant, in the terms a strategy can act on.
struct VariantProfile {
  bool ok = false;
  std::string message;       // without counters: why (no ncu, no permission, a timeout)
  bool unavailable = false;  // no profile can succeed (no ncu, no permission): ask no more
  std::string step;          // the bottleneck: "shared memory", "global memory", ...
  // Parameters of this space that address it, most direct first, each with the way it does.
  std::vector<RemedyKnob> knobs;
  double cost_s = 0;  // what taking the counters cost (a replay: what it cost then)
};

// Profiles measured variants for a strategy that follows the bottleneck (counters from ncu in
// a program of its own, or those a recording holds). Never throws for a profiler that is
// missing or refused: the profile says why.
class VariantProfiler {
 public:
  virtual ~VariantProfiler() = default;
  // Seconds the search has run, the wall time the profiling budget is a share of; nullopt
  // where there is no such clock (a replay): the strategy then adds up the measurements' own
  // compile, check and timing times.
  virtual std::optional<double> elapsed_s() const = 0;
  // What profiling the variant would cost, for the budget's decision before it is spent.
  virtual double expected_cost_s(uint64_t config_index) const = 0;
  virtual VariantProfile profile(const Measurement& measured) = 0;
};

}  // namespace gputune
