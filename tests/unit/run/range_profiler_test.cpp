// The host half of CUPTI needs no GPU: it checks metric names against a chip's and counts the
// replay passes they take. Skips visibly where libcupti is not installed.
#include "run/range_profiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analysis/bottleneck.h"
#include "run/launch_counters.h"

namespace gputune {
namespace {

std::vector<std::string> collected() {
  std::vector<std::string> out;
  for (const auto& [collect, report] : range_profiler_metrics()) out.push_back(collect);
  return out;
}

TEST(RangeProfilerMetrics, HopperKnowsEveryMetricTheRangeProfilerCollects) {
  const RangeMetricsCheck check = check_range_metrics("GH100", collected());
  if (check.message.find("not found") != std::string::npos) GTEST_SKIP() << check.message;
  ASSERT_EQ(check.message, "");
  EXPECT_TRUE(check.unknown.empty()) << check.unknown.front();
  // One launch replayed a handful of times, not ncu's whole sections.
  EXPECT_GE(check.passes, 1u);
  EXPECT_LE(check.passes, 16u);
}

TEST(RangeProfilerMetrics, AnUnknownNameIsReportedNotFatal) {
  const RangeMetricsCheck check =
      check_range_metrics("GH100", {"smsp__inst_executed.sum", "smsp__no_such_counter.sum"});
  if (check.message.find("not found") != std::string::npos) GTEST_SKIP() << check.message;
  ASSERT_EQ(check.unknown, std::vector<std::string>{"smsp__no_such_counter.sum"});
  EXPECT_GE(check.passes, 1u);
}

// Every metric the classifier reads comes from the range profiler or from the launch itself,
// except the branch-target counts, which exist only through ncu's SASS patching.
TEST(RangeProfilerMetrics, TogetherWithTheLaunchTheyCoverWhatTheClassifierReads) {
  std::set<std::string> reported;
  for (const auto& [collect, report] : range_profiler_metrics()) reported.insert(report);
  DeviceInfo h100;
  h100.cc_major = 9;
  for (const auto& [name, value] : launch_counters(h100, {256, 32, 0})) reported.insert(name);
  std::vector<std::string> uncovered;
  for (const std::string& metric : bottleneck_metrics()) {
    if (!reported.count(metric)) uncovered.push_back(metric);
  }
  std::sort(uncovered.begin(), uncovered.end());
  EXPECT_EQ(uncovered,
            (std::vector<std::string>{"launch__occupancy_limit_barriers",
                                      "smsp__sass_average_branch_targets_threads_uniform.pct",
                                      "smsp__sass_branch_targets_threads_divergent.sum"}));
}

TEST(RangeProfilerMetrics, SassInstructionCountsAreTakenFromTheHardwareCountersOfTheSameOps) {
  std::map<std::string, std::string> by_report;
  for (const auto& [collect, report] : range_profiler_metrics()) by_report[report] = collect;
  EXPECT_EQ(by_report.at("smsp__sass_inst_executed_op_shared_ld.sum"),
            "smsp__inst_executed_op_shared_ld.sum");
  EXPECT_EQ(by_report.at("smsp__sass_inst_executed_op_global_st.sum"),
            "smsp__inst_executed_op_global_st.sum");
  EXPECT_EQ(by_report.at("smsp__inst_executed.sum"), "smsp__inst_executed.sum");
}

}  // namespace
}  // namespace gputune
