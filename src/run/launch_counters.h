#pragma once
// What Nsight Compute reports of a launch besides its counters (launch__*, device__attribute_*,
// the theoretical occupancy), worked out from the launch and the device the way ncu does, for
// a counter source that reads hardware counters only (the range profiler).
#include <map>
#include <string>

#include "core/occupancy.h"
#include "gputune/device.h"

namespace gputune {

// By ncu's names: launch__occupancy_limit_{registers,shared_mem,warps,blocks} (blocks per SM),
// launch__registers_per_thread, launch__shared_mem_per_block,
// sm__maximum_warps_per_active_cycle_pct and the device's capability and warps per SM.
std::map<std::string, double> launch_counters(const DeviceInfo& device, const BlockUsage& block);

}  // namespace gputune
