// The GPU idle share a search reports: 1 - busy / (GPUs x measuring wall time).
#include <gtest/gtest.h>

#include <cmath>

#include "store/search_record.h"

namespace gputune {
namespace {

SearchRecord measured(double measuring_s, double busy_s, int64_t gpus) {
  SearchRecord record;
  record.measuring_s = measuring_s;
  record.gpu_busy_s = busy_s;
  record.gpus = gpus;
  return record;
}

TEST(GpuIdleShare, IsTheShareOfTheMeasuringPhaseWithoutTheSearchsKernels) {
  EXPECT_DOUBLE_EQ(measured(10, 8, 1).gpu_idle_share(), 0.2);
  EXPECT_DOUBLE_EQ(measured(10, 10, 1).gpu_idle_share(), 0.0);
  EXPECT_DOUBLE_EQ(measured(10, 0, 1).gpu_idle_share(), 1.0);
}

TEST(GpuIdleShare, CountsEveryGpusTime) {
  EXPECT_DOUBLE_EQ(measured(10, 15, 2).gpu_idle_share(), 0.25);
  EXPECT_DOUBLE_EQ(measured(10, 8, 0).gpu_idle_share(), 0.2) << "no count read as one GPU";
}

TEST(GpuIdleShare, StaysWithinZeroAndOne) {
  // Events can add up to slightly more than the host's clock saw.
  EXPECT_DOUBLE_EQ(measured(1, 1.001, 1).gpu_idle_share(), 0.0);
}

TEST(GpuIdleShare, IsUnknownWithoutAMeasuringPhase) {
  EXPECT_TRUE(std::isnan(SearchRecord{}.gpu_idle_share())) << "a replay measures nothing";
  EXPECT_TRUE(std::isnan(measured(0, 0, 1).gpu_idle_share()));
  EXPECT_TRUE(std::isnan(measured(5, std::nan(""), 1).gpu_idle_share()));
}

}  // namespace
}  // namespace gputune
