#pragma once
// How well a config's launch fills the GPU: the wave-quantization (tail) effect that the
// nearest-problem tier weighs when it carries a config measured at one problem to another.
#include <vector>

#include "gputune/runtime.h"

namespace gputune::runtime {

// blocks / (ceil(blocks / SMs) x SMs) of the launch with the most blocks: the busiest SM sets
// the time, and this is the share of the SMs' time that does work. SMs rather than block slots
// (SMs x resident blocks): blocks resident together share their SM's throughput, and counting
// slots made every launch smaller than one wave of slots look idle (docs/runtime.md). 1 where
// nothing is known (no launch, no SM count).
double launch_fill(const std::vector<LaunchGeometry>& launches, int sm_count);

}  // namespace gputune::runtime
