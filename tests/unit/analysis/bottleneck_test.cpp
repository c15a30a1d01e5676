#include "analysis/bottleneck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "analysis/bottleneck_report.h"
#include "analysis/ncu_csv.h"
#include "analysis/remedies.h"
#include "test_paths.h"

namespace gputune {
namespace {

BottleneckAnalysis analyse(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tests/fixtures/ncu/" + name + ".raw.csv");
  std::stringstream text;
  text << in.rdbuf();
  const auto kernels = parse_ncu_raw_csv(text.str(), name);
  EXPECT_EQ(kernels.size(), 1u);
  const BottleneckAnalysis analysis = classify_bottleneck(kernels.at(0).values);
  EXPECT_TRUE(analysis.missing.empty()) << name << " lacks " << analysis.missing.front();
  return analysis;
}

bool has(const std::vector<Remedy>& remedies, Remedy remedy) {
  return std::find(remedies.begin(), remedies.end(), remedy) != remedies.end();
}

TEST(Bottleneck, CopyIsMemoryBoundAtEightyPercentOfDramPeakOrMore) {
  const BottleneckAnalysis a = analyse("copy");
  EXPECT_EQ(a.step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(a.bandwidth_bound);
  EXPECT_GE(a.dram_pct, 80);
  EXPECT_NEAR(a.dram_pct, 90.1, 0.1);
}

TEST(Bottleneck, TransposeWithoutPaddingHasBankConflictsAndPaddingIsTheRemedy) {
  const BottleneckAnalysis a = analyse("transpose_pad0");
  EXPECT_EQ(a.step, BottleneckStep::kSharedMemory);
  EXPECT_GT(a.conflicts_per_request, 10);  // 32-way conflicts on half the requests
  ASSERT_FALSE(a.remedies.empty());
  EXPECT_EQ(a.remedies.front(), Remedy::kPadding);
}

TEST(Bottleneck, PaddedTransposeHasNoConflictsLeftAndIsMemoryBound) {
  const BottleneckAnalysis a = analyse("transpose_pad1");
  EXPECT_LT(a.conflicts_per_request, 0.1);
  EXPECT_EQ(a.step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(a.bandwidth_bound);
}

TEST(Bottleneck, GemvBaselineDoesNotHideGlobalMemoryLatency) {
  const BottleneckAnalysis a = analyse("gemv_base");
  EXPECT_EQ(a.step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(a.latency_bound);
  EXPECT_LT(a.achieved_occupancy, a.required_occupancy);
  EXPECT_TRUE(has(a.remedies, Remedy::kThreadParallelism));
}

TEST(Bottleneck, BestSgemmIsInstructionBound) {
  const BottleneckAnalysis a = analyse("sgemm_best");
  EXPECT_EQ(a.step, BottleneckStep::kInstructions);
  EXPECT_GE(a.issue_active_pct, 70);
  EXPECT_EQ(a.pipe_utilisation.at(0).first, "fma");
  EXPECT_EQ(a.occupancy_limiter, "registers");
}

// The issue expected the global-memory step for the naive SGEMM. Its counters say otherwise
// (docs/bottleneck.md): occupancy is full (99.9%) against 5.7% required, DRAM at 4.7%; it is
// latency bound on barriers with the LSU pipe at 69%. The test pins what the numbers say.
TEST(Bottleneck, NaiveSgemmCountersAsCaptured) {
  const BottleneckAnalysis a = analyse("sgemm_naive");
  EXPECT_NEAR(a.achieved_occupancy, 0.9985, 1e-3);
  EXPECT_NEAR(a.required_occupancy, 0.057, 0.002);
  EXPECT_FALSE(a.latency_bound);
  EXPECT_FALSE(a.bandwidth_bound);
  EXPECT_EQ(a.stall_shares.at(0).first, "barrier");
  EXPECT_EQ(a.step, BottleneckStep::kLatency);
}

TEST(Bottleneck, RequiredOccupancyFollowsTheFormula) {
  CounterValues c;
  c["smsp__inst_executed.sum"] = 1000;
  c["smsp__sass_inst_executed_op_global_ld.sum"] = 50;
  c["smsp__sass_inst_executed_op_global_st.sum"] = 50;
  c["sm__warps_active.avg.pct_of_peak_sustained_active"] = 40;
  const BottleneckAnalysis a = classify_bottleneck(c, 9, 0, 64);
  EXPECT_DOUBLE_EQ(a.required_occupancy, 0.1 * 480 / 64);
  EXPECT_TRUE(a.latency_bound);
  EXPECT_FALSE(a.missing.empty());
}

// The counters that decide the first step for GEMV's fastest H100 variant (SHARED=0 TPR=32
// ROWS=4 MERGE=1 VEC=4 UNROLL=4, db/counters/gemv_*.csv.xz): a stream reading DRAM at 76.2% of
// the theoretical peak, with fewer warps than the formula asks for.
CounterValues gemv_best_counters() {
  CounterValues c;
  c["device__attribute_compute_capability_major"] = 9;
  c["device__attribute_compute_capability_minor"] = 0;
  c["device__attribute_max_warps_per_multiprocessor"] = 64;
  c["device__attribute_memory_clock_rate"] = 2.619e6;  // kHz
  c["device__attribute_global_memory_bus_width"] = 5120;
  c["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"] = 76.19;
  c["sm__warps_active.avg.pct_of_peak_sustained_active"] = 44.99;
  c["sm__maximum_warps_per_active_cycle_pct"] = 100;
  c["smsp__inst_executed.sum"] = 1.45408e6;
  c["smsp__sass_inst_executed_op_global_ld.sum"] = 262144;
  c["smsp__sass_inst_executed_op_global_st.sum"] = 4096;
  c["smsp__issue_active.avg.pct_of_peak_sustained_active"] = 6.31;
  return c;
}

BottleneckThresholds against_copy(double gbs) {
  BottleneckThresholds limits;
  limits.copy_bandwidth_gbs = gbs;
  return limits;
}

// The copy bandwidth gputune measured on that H100 (the recordings' copy_bandwidth_gbs).
constexpr double kH100CopyGbs = 2987.2;

TEST(Bottleneck, WithoutACopyBandwidthAStreamBelowEightyPercentOfPeakIsLatencyBound) {
  const BottleneckAnalysis a = classify_bottleneck(gemv_best_counters());
  EXPECT_EQ(a.step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(a.latency_bound);
  EXPECT_FALSE(a.bandwidth_bound);
  EXPECT_FALSE(a.at_copy_limit);
  EXPECT_DOUBLE_EQ(a.required_occupancy, 1.0);
  EXPECT_TRUE(has(a.remedies, Remedy::kThreadParallelism));
  EXPECT_NEAR(a.dram_gbs, 2554, 1);  // 76.19% of 2 * 2.619 GHz * 640 bytes
  EXPECT_EQ(a.copy_gbs, 0);
}

// The rule of the measured copy: close to what a plain copy achieves, a stream is at the
// bandwidth limit, and more warps or wider loads cannot move its bytes faster.
TEST(Bottleneck, AStreamCloseToTheMeasuredCopyBandwidthIsAtTheLimitNotLatencyBound) {
  const BottleneckAnalysis a =
      classify_bottleneck(gemv_best_counters(), 0, 0, 0, against_copy(kH100CopyGbs));
  EXPECT_EQ(a.step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(a.at_copy_limit);
  EXPECT_TRUE(a.bandwidth_bound);
  EXPECT_NEAR(a.copy_pct, 85.5, 0.1);
  EXPECT_NE(a.verdict.find("at the bandwidth limit"), std::string::npos) << a.verdict;
  EXPECT_NE(a.verdict.find("85.5% of the measured copy bandwidth (2987 GB/s"), std::string::npos)
      << a.verdict;
  for (Remedy parallelism : {Remedy::kThreadParallelism, Remedy::kInstructionParallelism,
                             Remedy::kVectorWidth, Remedy::kRegisterCap}) {
    EXPECT_FALSE(has(a.remedies, parallelism)) << remedy_name(parallelism);
  }
  EXPECT_EQ(a.remedies, (std::vector<Remedy>{Remedy::kSharedStaging, Remedy::kBlockOrder}));
  // The bytes come from the memory clock and bus width: dram__bytes is not missed.
  EXPECT_EQ(std::find(a.missing.begin(), a.missing.end(), "dram__bytes.sum.per_second"),
            a.missing.end());
}

TEST(Bottleneck, BelowTheCopyThresholdTheOccupancyRuleStillDecides) {
  // A copy measured 10% faster than this GPU's: 76.2% of the theoretical peak is then 77.7%
  // of it, below the 80%.
  const BottleneckAnalysis a =
      classify_bottleneck(gemv_best_counters(), 0, 0, 0, against_copy(2554.0 / 0.777));
  EXPECT_FALSE(a.at_copy_limit);
  EXPECT_TRUE(a.latency_bound);
  EXPECT_TRUE(has(a.remedies, Remedy::kThreadParallelism));
}

TEST(Bottleneck, MeasuredDramBytesPerSecondComeBeforeThePeakFromTheMemoryClock) {
  CounterValues c = gemv_best_counters();
  c["dram__bytes.sum.per_second"] = 2.0e12;  // 67% of the copy: not at the limit
  const BottleneckAnalysis a = classify_bottleneck(c, 0, 0, 0, against_copy(kH100CopyGbs));
  EXPECT_DOUBLE_EQ(a.dram_gbs, 2000);
  EXPECT_FALSE(a.at_copy_limit);
  EXPECT_TRUE(a.latency_bound);
}

TEST(Bottleneck, WithoutDramBytesTheCopyCannotJudgeAndSaysWhatIsMissing) {
  CounterValues c = gemv_best_counters();
  c.erase("device__attribute_memory_clock_rate");
  const BottleneckAnalysis a = classify_bottleneck(c, 0, 0, 0, against_copy(kH100CopyGbs));
  EXPECT_FALSE(a.at_copy_limit);
  EXPECT_TRUE(a.latency_bound);
  EXPECT_NE(std::find(a.missing.begin(), a.missing.end(), "dram__bytes.sum.per_second"),
            a.missing.end());
}

// The reference kernels keep their verdicts when judged against the measured copy.
TEST(Bottleneck, ReferenceKernelsKeepTheirVerdictsAgainstTheMeasuredCopy) {
  const BottleneckThresholds limits = against_copy(kH100CopyGbs);
  const auto classify = [&](const std::string& name) {
    std::ifstream in(test::source_dir() + "/tests/fixtures/ncu/" + name + ".raw.csv");
    std::stringstream text;
    text << in.rdbuf();
    return classify_bottleneck(parse_ncu_raw_csv(text.str(), name).at(0).values, 0, 0, 0, limits);
  };
  const BottleneckAnalysis copy = classify("copy");
  EXPECT_EQ(copy.step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(copy.at_copy_limit);
  EXPECT_NEAR(copy.copy_pct, 101.1, 0.1);  // ncu's 3.021 TB/s against gputune's 2987 GB/s
  EXPECT_EQ(classify("transpose_pad0").step, BottleneckStep::kSharedMemory);
  EXPECT_EQ(classify("transpose_pad0").remedies.front(), Remedy::kPadding);
  EXPECT_EQ(classify("transpose_pad1").step, BottleneckStep::kGlobalMemory);
  EXPECT_TRUE(classify("transpose_pad1").at_copy_limit);
  const BottleneckAnalysis gemv = classify("gemv_base");
  EXPECT_TRUE(gemv.latency_bound);
  EXPECT_FALSE(gemv.at_copy_limit);
  EXPECT_TRUE(has(gemv.remedies, Remedy::kThreadParallelism));
  const BottleneckAnalysis best = classify("sgemm_best");
  EXPECT_EQ(best.step, BottleneckStep::kInstructions);
  EXPECT_EQ(best.pipe_utilisation.at(0).first, "fma");
  EXPECT_EQ(classify("sgemm_naive").step, BottleneckStep::kLatency);
}

TEST(Bottleneck, ReportShowsDramAgainstTheMeasuredCopy) {
  const std::string report = format_bottleneck_report(
      classify_bottleneck(gemv_best_counters(), 0, 0, 0, against_copy(kH100CopyGbs)), Spec{});
  EXPECT_NE(report.find("DRAM 2554 GB/s, 85.5% of the measured copy bandwidth (2987 GB/s)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("1. Global memory  <- bottleneck"), std::string::npos) << report;
}

TEST(Bottleneck, LatencyIsLookedUpPerArchitecture) {
  EXPECT_EQ(memory_latency_cycles(9, 0), 480);
  EXPECT_EQ(memory_latency_cycles(8, 0), 470);
  EXPECT_EQ(memory_latency_cycles(7, 0), 440);
  EXPECT_EQ(memory_latency_cycles(3, 5), 600);
}

TEST(Bottleneck, ReportShowsTheStepsAndTheSpacesKnobs) {
  Spec spec;
  spec.parameters.push_back({"PAD", {Value(int64_t{0}), Value(int64_t{1})}, {}, false});
  spec.remedies = {{"padding", {"PAD"}}};
  const std::string report = format_bottleneck_report(analyse("transpose_pad0"), spec);
  for (const char* part :
       {"1. Global memory", "2. Shared memory  <- bottleneck", "3. Execution dependency",
        "4. Instructions", "bank conflicts", "Verdict (shared memory)",
        "padding shared arrays (one extra column): change PAD"}) {
    EXPECT_NE(report.find(part), std::string::npos) << part << "\n" << report;
  }
}

TEST(Bottleneck, ReportSaysWhichWayToTurnADirectedKnob) {
  Spec spec;
  spec.parameters.push_back({"PAD", {Value(int64_t{0}), Value(int64_t{1})}, {}, false});
  spec.parameters.push_back({"TILE", {Value(int64_t{16}), Value(int64_t{32})}, {}, false});
  spec.remedies = {{"padding", {"+PAD"}}, {"register_tiling", {"-TILE"}}};
  const std::string report = format_bottleneck_report(analyse("transpose_pad0"), spec);
  EXPECT_NE(report.find("padding shared arrays (one extra column): raise PAD"), std::string::npos)
      << report;
  EXPECT_NE(report.find("moving shared data into registers: lower TILE"), std::string::npos)
      << report;
}

TEST(Remedies, KnobsKeepTheirDirectionAndNamesLoseTheSign) {
  Spec spec;
  spec.parameters.push_back({"BM", {Value(int64_t{64}), Value(int64_t{128})}, {}, false});
  spec.parameters.push_back({"WX", {Value(int64_t{8}), Value(int64_t{16})}, {}, false});
  spec.remedies = {{"thread_parallelism", {"-BM", "WX"}}, {"register_tiling", {"+WX"}}};
  const std::vector<RemedyKnob> knobs = knobs_for(spec, Remedy::kThreadParallelism);
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0], (RemedyKnob{"BM", KnobDirection::kLower}));
  EXPECT_EQ(knobs[1], (RemedyKnob{"WX", KnobDirection::kEither}));
  EXPECT_EQ(knob_names(knobs_for(spec, Remedy::kRegisterTiling)), std::vector<std::string>{"WX"});
  EXPECT_EQ(describe_remedy_knob(knobs_for(spec, Remedy::kRegisterTiling)[0]), "raise WX");
  EXPECT_EQ(parse_remedy_knob("-"), (RemedyKnob{"-", KnobDirection::kEither}));
}

}  // namespace
}  // namespace gputune
