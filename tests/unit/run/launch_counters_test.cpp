// What ncu reports of a launch besides counters, worked out from the launch and the device.
#include "run/launch_counters.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

DeviceInfo h100() {
  DeviceInfo d;
  d.cc_major = 9;
  d.sm_limits = {65536, 2048, 32, 228 * 1024, 1024, 256};
  return d;
}

TEST(LaunchCounters, RegistersLimitAHeavyKernelAsNcuSays) {
  // 256 threads x 128 registers: 32768 a block, two fit in 65536; the warps allow eight.
  const auto c = launch_counters(h100(), {256, 128, 0});
  EXPECT_DOUBLE_EQ(c.at("launch__occupancy_limit_registers"), 2);
  EXPECT_DOUBLE_EQ(c.at("launch__occupancy_limit_warps"), 8);
  EXPECT_DOUBLE_EQ(c.at("launch__occupancy_limit_blocks"), 32);
  EXPECT_DOUBLE_EQ(c.at("launch__occupancy_limit_shared_mem"), 32);  // uses none
  EXPECT_DOUBLE_EQ(c.at("sm__maximum_warps_per_active_cycle_pct"), 25);
  EXPECT_DOUBLE_EQ(c.at("device__attribute_max_warps_per_multiprocessor"), 64);
  EXPECT_DOUBLE_EQ(c.at("device__attribute_compute_capability_major"), 9);
  EXPECT_DOUBLE_EQ(c.at("launch__registers_per_thread"), 128);
}

TEST(LaunchCounters, SharedMemoryCountsWithTheSystemsReservePerBlock) {
  // 48 KiB + 1 KiB reserved: four blocks in 228 KiB.
  const auto c = launch_counters(h100(), {128, 32, 48 * 1024});
  EXPECT_DOUBLE_EQ(c.at("launch__occupancy_limit_shared_mem"), 4);
  EXPECT_DOUBLE_EQ(c.at("launch__shared_mem_per_block"), 48 * 1024);
  EXPECT_DOUBLE_EQ(c.at("sm__maximum_warps_per_active_cycle_pct"), 100.0 * 4 * 4 / 64);
}

}  // namespace
}  // namespace gputune
