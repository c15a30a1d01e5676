#include "core/launch_merge.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

TEST(LaunchMerge, ThreadMergeShrinksTheBlockAndKeepsTheGrid) {
  MergeFactors factors;
  factors.thread_y = 4;
  MergedLaunch merged;
  ASSERT_EQ(merge_launch(factors, {16, 16, 1}, {63, 63, 1}, &merged), "");
  EXPECT_EQ(merged.block, (std::array<uint32_t, 3>{16, 4, 1}));
  EXPECT_EQ(merged.grid, (std::array<uint32_t, 3>{63, 63, 1}));
  EXPECT_TRUE(merged.trailing_arguments.empty());
}

TEST(LaunchMerge, BlockMergeGrowsTheBlockShrinksTheGridAndPassesTheOriginalGrid) {
  MergeFactors factors;
  factors.block_x = 2;
  factors.block_y = 3;
  MergedLaunch merged;
  ASSERT_EQ(merge_launch(factors, {32, 8, 1}, {33, 65, 2}, &merged), "");
  EXPECT_EQ(merged.block, (std::array<uint32_t, 3>{64, 24, 1}));
  EXPECT_EQ(merged.grid, (std::array<uint32_t, 3>{17, 22, 2}));  // ceil(33/2), ceil(65/3)
  EXPECT_EQ(merged.trailing_arguments, (std::vector<uint32_t>{33, 65}));
}

TEST(LaunchMerge, OnlyMergedDimensionsPassTheirExtent) {
  MergeFactors factors;
  factors.block_y = 2;
  factors.thread_x = 2;
  MergedLaunch merged;
  ASSERT_EQ(merge_launch(factors, {128, 2, 1}, {10, 7, 1}, &merged), "");
  EXPECT_EQ(merged.block, (std::array<uint32_t, 3>{64, 4, 1}));
  EXPECT_EQ(merged.grid, (std::array<uint32_t, 3>{10, 4, 1}));
  EXPECT_EQ(merged.trailing_arguments, (std::vector<uint32_t>{7}));
}

TEST(LaunchMerge, RefusesAThreadMergeThatDoesNotDivideTheBlock) {
  MergeFactors factors;
  factors.thread_x = 64;
  MergedLaunch merged;
  EXPECT_EQ(merge_launch(factors, {96, 1, 1}, {10, 1, 1}, &merged),
            "thread_merge_x = 64 does not divide the block's x extent 96");
}

TEST(LaunchMerge, FactorsComeFromTheKnobNames) {
  MergeFactors factors;
  EXPECT_TRUE(factors.set("thread_merge_y", 2));
  EXPECT_TRUE(factors.set("block_merge_x", 4));
  EXPECT_FALSE(factors.set("unroll", 4));
  EXPECT_EQ(factors.thread_y, 2u);
  EXPECT_EQ(factors.block_x, 4u);
  EXPECT_FALSE(factors.neutral());
  EXPECT_TRUE(factors.set("block_merge_y", 1.5));  // not whole: kept as 0, refused
  MergedLaunch merged;
  EXPECT_NE(merge_launch(factors, {32, 2, 1}, {1, 1, 1}, &merged), "");
}

}  // namespace
}  // namespace gputune
