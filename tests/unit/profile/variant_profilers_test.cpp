// The bottleneck strategy's profilers: a search that goes on without counters when ncu is
// missing, counters taken by a (fake) ncu and stored, and a replay from recorded counters.
#include "profile/variant_profilers.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/ncu_csv.h"
#include "gputune/session.h"
#include "replay/replay.h"
#include "spec/spec_loader.h"
#include "support/engine_fakes.h"
#include "support/synthetic_recording.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tests/fixtures/ncu/" + name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class VariantProfilersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_profilers_test_" + std::to_string(getpid()));
    spec_ = testing::write_synthetic_spec(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An "ncu" that runs `body` (a shell line) and nothing else.
  NcuLaunch fake_ncu(const std::string& body) const {
    const fs::path ncu = dir_ / "ncu";
    std::ofstream(ncu) << "#!/bin/sh\n" << body << "\n";
    chmod(ncu.c_str(), 0755);
    NcuLaunch launch;
    launch.ncu = ncu.string();
    launch.self = "/bin/true";
    return launch;
  }
  // An "ncu" that prints the captured ncu output `name` (tests/fixtures/ncu).
  NcuLaunch ncu_printing(const std::string& name) const {
    return fake_ncu("cat '" + test::source_dir() + "/tests/fixtures/ncu/" + name + "'");
  }

  fs::path dir_;
  std::string spec_;
};

// The first `evaluations` configs, measured by `runner` into `store`.
SearchResult brute_force(const Problem& problem, Runner& runner, Compiler& compiler, Store& store,
                         int64_t evaluations) {
  SearchOptions options;
  options.strategy = "brute_force";
  options.budget_evaluations = evaluations;
  return run_search(problem, runner, compiler, store, options);
}

// Every variant of `recording` with `values` as its counters, and compiles long enough for a
// few profiles (each charged ncu's start, kProfileStartS) to fit 10% of the recorded time.
void record_counters_of_every_variant(Recording* recording,
                                      const std::map<std::string, double>& values) {
  for (Measurement& m : recording->measurements) m.compile_ms = 2000;
  for (const Measurement& m : recording->measurements) {
    StoredCounters counters;
    counters.source = "ncu";
    counters.wall_s = 0.001;
    counters.values = values;
    recording->counters[m.config_index] = counters;
  }
}

TEST_F(VariantProfilersTest, ASearchGoesOnWithoutCountersWhenNcuIsMissing) {
  Problem problem(load_spec(spec_, {}));
  testing::SyntheticRunner runner(problem.space(), 1024, 0);
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  NcuLaunch launch;
  launch.ncu = (dir_ / "no-such-ncu").string();
  auto profiler = make_ncu_profiler(problem, spec_, {}, *store, runner.device(), launch);
  SearchOptions options;
  options.strategy = "bottleneck";
  options.budget_evaluations = 30;
  options.profiler = profiler.get();
  const SearchResult result = run_search(problem, runner, *compiler, *store, options);
  EXPECT_EQ(result.evaluated.size(), 30u);
  const std::string summary = profiler->summary(result.record.wall_s);
  EXPECT_NE(summary.find("0 of 1 variants"), std::string::npos) << summary;
  EXPECT_NE(summary.find("the search went on without counters"), std::string::npos) << summary;
  EXPECT_NE(summary.find("GPUTUNE_NCU"), std::string::npos) << summary;
}

TEST_F(VariantProfilersTest, NcuCountersAreClassifiedAndStoredWithTheMeasurement) {
  Problem problem(load_spec(spec_, {}));
  testing::SyntheticRunner runner(problem.space(), 1024, 0);
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  const SearchResult result = brute_force(problem, runner, *compiler, *store, 4);
  const NcuLaunch launch = ncu_printing("transpose_pad0.raw.csv");
  auto profiler = make_ncu_profiler(problem, spec_, {}, *store, runner.device(), launch);
  const Measurement& measured = result.evaluated.front();
  const VariantProfile profile = profiler->profile(measured);
  ASSERT_TRUE(profile.ok) << profile.message;
  EXPECT_EQ(profile.step, "shared memory");
  EXPECT_GE(profile.cost_s, 0);
  const auto stored = store->all_counters(result.workload);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored.begin()->first, measured.config_index);
  EXPECT_EQ(stored.begin()->second.source, "ncu");
  EXPECT_FALSE(stored.begin()->second.values.empty());
  EXPECT_NE(profiler->summary(10).find("1 of 1 variants"), std::string::npos);
}

// A live search measured the device's copy bandwidth (the synthetic runner's 3000 GB/s) before
// any profile: the copy kernel's 3021 GB/s is at the bandwidth limit, where wider accesses
// (the theoretical rule's vector_width) are no remedy.
TEST_F(VariantProfilersTest, ALiveProfileJudgesDramAgainstTheCopyTheSearchMeasured) {
  std::ofstream(spec_, std::ios::app) << "remedies: {vector_width: [+VEC]}\n";
  Problem problem(load_spec(spec_, {}));
  testing::SyntheticRunner runner(problem.space(), 1024, 0);
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  const SearchResult result = brute_force(problem, runner, *compiler, *store, 2);
  ASSERT_EQ(store->copy_bandwidth(runner.device()).value_or(0), 3000);
  const NcuLaunch launch = ncu_printing("copy.raw.csv");
  auto profiler = make_ncu_profiler(problem, spec_, {}, *store, runner.device(), launch);
  const VariantProfile profile = profiler->profile(result.evaluated.front());
  ASSERT_TRUE(profile.ok) << profile.message;
  EXPECT_EQ(profile.step, "global memory");
  EXPECT_EQ(describe_remedy_knobs(profile.knobs), "change block_order");
}

TEST_F(VariantProfilersTest, AReplayWithRecordedCountersProfilesFromThem) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  const KernelCounters pad0 = parse_ncu_raw_csv(fixture("transpose_pad0.raw.csv")).front();
  record_counters_of_every_variant(&recording, pad0.values);
  const std::string path = (dir_ / "with_counters.csv").string();
  write_recording(recording, path);
  // Annotated after the recording was made: it still replays (the measurement hash).
  std::ofstream(spec_, std::ios::app) << "remedies: {padding: [+PAD]}\n";

  SearchRequest request;
  request.spec = spec_;
  request.replay = path;
  request.strategy = "bottleneck";
  request.budget = "40";
  const SearchOutcome outcome = search(request);
  EXPECT_EQ(outcome.evaluated.size(), 40u);
  EXPECT_NE(outcome.profiling.find("profiling (recorded counters)"), std::string::npos)
      << outcome.profiling;
  EXPECT_EQ(outcome.profiling.find(" 0 of "), std::string::npos) << outcome.profiling;
  EXPECT_NE(outcome.profiling.find("the fastest profiled variant: shared memory (raise PAD)"),
            std::string::npos)
      << outcome.profiling;

  request.strategy = "model";
  EXPECT_EQ(search(request).profiling, "");
}

// A replay judges DRAM throughput against the copy bandwidth the recording carries: a stream
// at 85% of it is at the bandwidth limit (remedy: block order, L2 locality), where without it
// the occupancy rule asks for more parallelism.
TEST_F(VariantProfilersTest, AReplayJudgesDramAgainstTheRecordedCopyBandwidth) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  ASSERT_DOUBLE_EQ(recording.info.copy_bandwidth_gbs, 3000);
  // GEMV's baseline, latency bound (6% of the warps against 100% required), made to stream at
  // 2550 GB/s, 76% of the theoretical peak: below the theoretical 80%, 85% of the copy.
  KernelCounters stream = parse_ncu_raw_csv(fixture("gemv_base.raw.csv")).front();
  stream.values["dram__bytes.sum.per_second"] = 2.55e12;
  stream.values["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"] = 76;
  record_counters_of_every_variant(&recording, stream.values);
  std::ofstream(spec_, std::ios::app) << "remedies: {thread_parallelism: [+TX], vector_width: "
                                         "[+VEC]}\n";
  SearchRequest request;
  request.spec = spec_;
  request.strategy = "bottleneck";
  request.budget = "40";

  request.replay = (dir_ / "with_copy.csv").string();
  write_recording(recording, request.replay);
  const SearchOutcome at_limit = search(request);
  EXPECT_NE(at_limit.profiling.find("the fastest profiled variant: global memory (change "
                                    "block_order)"),
            std::string::npos)
      << at_limit.profiling;

  recording.info.copy_bandwidth_gbs = 0;  // an older recording: no copy bandwidth
  request.replay = (dir_ / "without_copy.csv").string();
  write_recording(recording, request.replay);
  const SearchOutcome latency = search(request);
  EXPECT_NE(latency.profiling.find("the fastest profiled variant: global memory (raise TX, raise "
                                   "VEC)"),
            std::string::npos)
      << latency.profiling;
}

TEST_F(VariantProfilersTest, AReplayChargesNcusStartToCountersRecordedAsABatchsShare) {
  const Spec spec = load_spec(spec_, {});
  const KernelCounters pad0 = parse_ncu_raw_csv(fixture("transpose_pad0.raw.csv")).front();
  std::map<uint64_t, StoredCounters> counters;
  counters[1].wall_s = 0.3;  // a 64-variant batch's share
  counters[2].wall_s = 2.6;  // a whole ncu run of its own
  for (auto& entry : counters) entry.second.values = pad0.values;
  auto profiler = make_recorded_profiler(spec, counters, 2.0);
  EXPECT_DOUBLE_EQ(profiler->expected_cost_s(1), 2.3);
  EXPECT_DOUBLE_EQ(profiler->expected_cost_s(2), 2.6);
  EXPECT_DOUBLE_EQ(profiler->expected_cost_s(3), 0) << "no counters, nothing to pay";
  Measurement m;
  m.config_index = 1;
  EXPECT_DOUBLE_EQ(profiler->profile(m).cost_s, 2.3);
  EXPECT_DOUBLE_EQ(profiler->spent_s(), 2.3);
}

TEST_F(VariantProfilersTest, ABottleneckSearchAlwaysSaysWhatProfilingCostOrWhyNothingWas) {
  auto store = open_sqlite_store(":memory:");
  const Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  const std::string path = (dir_ / "without_counters.csv").string();
  write_recording(recording, path);
  SearchRequest request;
  request.spec = spec_;
  request.replay = path;
  request.strategy = "bottleneck";
  request.budget = "30";
  const SearchOutcome outcome = search(request);
  EXPECT_TRUE(outcome.profiling_reported);
  EXPECT_EQ(outcome.profiles_taken, 0u);
  EXPECT_EQ(outcome.profiling.rfind("profiling (recorded counters): 0 of ", 0), 0u)
      << outcome.profiling;
  EXPECT_NE(outcome.profiling.find("no counters"), std::string::npos) << outcome.profiling;
}

TEST_F(VariantProfilersTest, AnNcuSearchWithNoProfileSaysTheBudgetLeftNoRoom) {
  Problem problem(load_spec(spec_, {}));
  auto store = open_sqlite_store(":memory:");
  testing::SyntheticRunner runner(problem.space(), 1024, 0);
  const NcuLaunch launch = fake_ncu("exit 0");
  auto profiler = make_ncu_profiler(problem, spec_, {}, *store, runner.device(), launch);
  const std::string summary = profiler->summary(20, true);
  EXPECT_NE(summary.find("0 of 0 variants"), std::string::npos) << summary;
  EXPECT_NE(summary.find("never fit in 10% of the search's wall time (2 s"), std::string::npos)
      << summary;
  EXPECT_EQ(profiler->summary(20, false), "");
}

// --profiler auto: counters from the GPU worker that measured, stored like ncu's.
TEST_F(VariantProfilersTest, AutoProfilesInTheGpuWorkerAndStoresTheCounters) {
  Problem problem(load_spec(spec_, {}));
  ProcessRunner runner({0}, testing::scripted({}), testing::quick_watchdog());
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  const SearchResult result = brute_force(problem, runner, *compiler, *store, 4);
  NcuLaunch launch;
  launch.ncu = (dir_ / "no-such-ncu").string();
  auto profiler =
      make_search_profiler("auto", problem, *compiler, runner, *store, spec_, {}, launch);
  const Measurement& measured = result.evaluated.back();
  const VariantProfile profile = profiler->profile(measured);
  ASSERT_TRUE(profile.ok) << profile.message;
  EXPECT_FALSE(profile.step.empty());
  const auto stored = store->all_counters(result.workload);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored.begin()->first, measured.config_index);
  EXPECT_EQ(stored.begin()->second.source, "scripted");
  // The classifier's names: ncu's SASS op counts come from the hardware's.
  EXPECT_EQ(stored.begin()->second.values.count("smsp__sass_inst_executed_op_global_ld.sum"), 1u);
  const std::string summary = profiler->summary(10);
  EXPECT_NE(summary.find("profiling (CUPTI): 1 of 1"), std::string::npos) << summary;
}

// Without permission for CUPTI, auto asks ncu, and says why CUPTI was not used.
TEST_F(VariantProfilersTest, AutoTurnsToNcuWhenCuptiCannotProfile) {
  Problem problem(load_spec(spec_, {}));
  testing::Script script;
  script.no_counters = true;
  ProcessRunner runner({0}, testing::scripted(script), testing::quick_watchdog());
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  const SearchResult result = brute_force(problem, runner, *compiler, *store, 3);
  const NcuLaunch launch = ncu_printing("transpose_pad0.raw.csv");
  auto profiler =
      make_search_profiler("auto", problem, *compiler, runner, *store, spec_, {}, launch);
  const VariantProfile profile = profiler->profile(result.evaluated.front());
  ASSERT_TRUE(profile.ok) << profile.message;
  EXPECT_EQ(profile.step, "shared memory");  // the ncu fixture's verdict
  EXPECT_EQ(store->all_counters(result.workload).begin()->second.source, "ncu");
  const std::string summary = profiler->summary(10);
  EXPECT_NE(summary.find("profiling (ncu): 1 of 1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("CUPTI was not used: no permission"), std::string::npos) << summary;
}

}  // namespace
}  // namespace gputune
