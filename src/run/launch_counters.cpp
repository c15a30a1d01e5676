#include "run/launch_counters.h"

#include "core/occupancy.h"

namespace gputune {

std::map<std::string, double> launch_counters(const DeviceInfo& device, const LaunchShape& launch) {
  const SmLimits limits = sm_limits(device);
  const BlockUsage usage{launch.threads, launch.registers, launch.shared_bytes};
  const BlockLimits by = block_limits(usage, limits);
  return {
      {"launch__occupancy_limit_registers", by.registers},
      {"launch__occupancy_limit_shared_mem", by.shared_memory},
      {"launch__occupancy_limit_warps", by.warps},
      {"launch__occupancy_limit_blocks", by.blocks},
      {"launch__registers_per_thread", launch.registers},
      {"launch__shared_mem_per_block", launch.shared_bytes},
      {"sm__maximum_warps_per_active_cycle_pct", 100 * warp_occupancy(usage, limits)},
      {"device__attribute_compute_capability_major", device.cc_major},
      {"device__attribute_compute_capability_minor", device.cc_minor},
      {"device__attribute_max_warps_per_multiprocessor", limits.threads / 32},
  };
}

}  // namespace gputune
