#include "run/launch_counters.h"

namespace gputune {

std::map<std::string, double> launch_counters(const DeviceInfo& device, const BlockUsage& block) {
  const SmLimits limits = sm_limits(device);
  const BlockLimits by = block_limits(block, limits);
  return {
      {"launch__occupancy_limit_registers", by.registers},
      {"launch__occupancy_limit_shared_mem", by.shared_memory},
      {"launch__occupancy_limit_warps", by.warps},
      {"launch__occupancy_limit_blocks", by.blocks},
      {"launch__registers_per_thread", block.registers},
      {"launch__shared_mem_per_block", block.shared_bytes},
      {"sm__maximum_warps_per_active_cycle_pct", 100 * warp_occupancy(block, limits)},
      {"device__attribute_compute_capability_major", device.cc_major},
      {"device__attribute_compute_capability_minor", device.cc_minor},
      {"device__attribute_max_warps_per_multiprocessor", limits.threads / 32},
  };
}

}  // namespace gputune
