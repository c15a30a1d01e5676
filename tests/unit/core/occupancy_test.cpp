#include "core/occupancy.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

SmLimits hopper() { return documented_sm_limits(9, 0); }

TEST(Occupancy, HopperLimitsAreTheDocumentedOnes) {
  const SmLimits limits = hopper();
  EXPECT_EQ(limits.registers, 65536);
  EXPECT_EQ(limits.threads, 2048);
  EXPECT_EQ(limits.blocks, 32);
  EXPECT_EQ(limits.shared_bytes, 233472);
  EXPECT_EQ(limits.reserved_shared_bytes_per_block, 1024);
  EXPECT_EQ(limits.register_granularity, 256);
}

TEST(Occupancy, HandComputedHopperCases) {
  // 128 registers x 32 threads = 4096 a warp, x 8 warps = 32768: two blocks of 65536.
  EXPECT_EQ(resident_blocks({256, 128, 0}, hopper()), 2);
  // 95 registers round up to 96 a thread (3040 -> 3072 a warp): still two blocks.
  EXPECT_EQ(resident_blocks({256, 95, 0}, hopper()), 2);
  EXPECT_EQ(resident_blocks({256, 0, 0}, hopper()), 8);   // registers unknown: 2048 / 256
  EXPECT_EQ(resident_blocks({64, 32, 0}, hopper()), 32);  // the block limit
  // 60 KiB + 1 KiB reserved = 62464 bytes a block; 233472 / 62464 = 3.
  EXPECT_EQ(resident_blocks({256, 32, 60 * 1024}, hopper()), 3);
  EXPECT_EQ(resident_blocks({256, 32, 300 * 1024}, hopper()), 0);  // does not fit at all
  EXPECT_EQ(resident_blocks({0, 0, 0}, hopper()), 8);  // block size unknown: 256 threads
  EXPECT_DOUBLE_EQ(warp_occupancy({256, 255, 0}, hopper()), 0.125);  // 8192 a warp: one block
  // 100 threads take 4 whole warps: 16 blocks fill every slot.
  EXPECT_DOUBLE_EQ(warp_occupancy({100, 0, 0}, hopper()), 1.0);
}

TEST(Occupancy, AnotherGpusLimitsGiveAnotherAnswer) {
  // sm_86: 1536 threads, 16 blocks, 100 KiB of shared memory an SM.
  const SmLimits ampere = documented_sm_limits(8, 6);
  EXPECT_EQ(resident_blocks({256, 32, 0}, ampere), 6);  // 1536 / 256, where Hopper holds 8
  EXPECT_DOUBLE_EQ(warp_occupancy({256, 32, 0}, ampere), 1.0);
  EXPECT_EQ(resident_blocks({64, 0, 0}, ampere), 16);  // the block limit, where Hopper's is 32
  // 30 KiB + 1 KiB reserved a block: 102400 / 31744 = 3 (Hopper: 7).
  EXPECT_EQ(resident_blocks({128, 0, 30 * 1024}, ampere), 3);
  EXPECT_EQ(resident_blocks({128, 0, 30 * 1024}, hopper()), 7);

  // Half the registers and a coarser allocation unit: 33 registers x 32 = 1056, rounded up to
  // 1536 in units of 512; x 4 warps = 6144 a block; 32768 / 6144 = 5.
  SmLimits custom = hopper();
  custom.registers = 32768;
  custom.register_granularity = 512;
  EXPECT_EQ(resident_blocks({128, 33, 0}, custom), 5);
  custom.register_granularity = 256;  // 1280 a warp, 5120 a block: 6
  EXPECT_EQ(resident_blocks({128, 33, 0}, custom), 6);
}

TEST(Occupancy, DocumentedLimitsFallBackToTheClosestOlderCapability) {
  EXPECT_EQ(documented_sm_limits(8, 6).threads, 1536);
  EXPECT_EQ(documented_sm_limits(7, 5).threads, 1024);
  EXPECT_EQ(documented_sm_limits(9, 0).shared_bytes, documented_sm_limits(0, 0).shared_bytes);
  EXPECT_EQ(documented_sm_limits(11, 0).shared_bytes, documented_sm_limits(10, 0).shared_bytes);
  EXPECT_EQ(documented_sm_limits(8, 8).blocks, documented_sm_limits(8, 7).blocks);
  EXPECT_EQ(documented_sm_limits(5, 2).threads, 2048);  // older than the table: its oldest
}

TEST(Occupancy, ReportedLimitsWinAndMissingOnesComeFromTheCapability) {
  DeviceInfo recorded;  // as read from a database or a recording: no limits
  recorded.cc_major = 9;
  const SmLimits from_table = sm_limits(recorded);
  EXPECT_EQ(from_table.shared_bytes, 233472);
  EXPECT_EQ(from_table.reserved_shared_bytes_per_block, 1024);

  DeviceInfo live;
  live.cc_major = 8;
  live.cc_minor = 6;
  live.sm_limits.registers = 65536;
  live.sm_limits.threads = 1024;  // reported: wins over the table's 1536
  live.sm_limits.blocks = 16;
  live.sm_limits.shared_bytes = 50 * 1024;
  live.sm_limits.reserved_shared_bytes_per_block = 0;  // reported as none
  const SmLimits limits = sm_limits(live);
  EXPECT_EQ(limits.threads, 1024);
  EXPECT_EQ(limits.shared_bytes, 50 * 1024);
  EXPECT_EQ(limits.reserved_shared_bytes_per_block, 0);
  EXPECT_EQ(limits.register_granularity, 256);  // the driver does not report it
  EXPECT_EQ(resident_blocks({256, 0, 0}, limits), 4);
}

}  // namespace
}  // namespace gputune
