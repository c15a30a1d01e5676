// Stored counters read back without a GPU: a replay of a recording that carries counters puts
// them in the database, and stored_analysis() classifies them as `gputune analyze` does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/bottleneck.h"
#include "analysis/bottleneck_report.h"
#include "analysis/ncu_csv.h"
#include "core/config_codec.h"
#include "gputune/analysis.h"
#include "gputune/error.h"
#include "gputune/session.h"
#include "replay/recording.h"
#include "space/problem.h"
#include "store/store.h"
#include "support/synthetic_recording.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::map<std::string, double> fixture_counters(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tests/fixtures/ncu/" + name);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  return parse_ncu_raw_csv(text, name).at(0).values;
}

class StoredAnalysisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_stored_analysis_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    spec_ = testing::write_synthetic_spec(dir_);
    std::ofstream(spec_, std::ios::app) << "remedies: {padding: [PAD]}\n";
    {
      auto store = open_sqlite_store((dir_ / "recorded.db").string());
      testing::record_synthetic(*store, spec_, 1024, 0);
    }
    const auto written = export_recordings((dir_ / "recorded.db").string(), dir_.string());
    ASSERT_EQ(written.size(), 1u);
    Recording recording = load_recording(written[0].first);
    baseline_ = recording.info.baseline_index;
    counters_ = fixture_counters("transpose_pad0.raw.csv");
    recording.counters[baseline_] = {"ncu", 3.5, 0, counters_};
    recording_ = (dir_ / "with_counters.csv").string();
    write_recording(recording, recording_);

    SearchRequest request;
    request.replay = recording_;
    request.db = db_ = (dir_ / "replayed.db").string();
    request.strategy = "random";
    request.seed = 3;
    request.budget = "12";
    outcome_ = search(request);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A measured variant other than the baseline: it has no counters.
  uint64_t another_measured() const {
    for (const Measurement& m : outcome_.evaluated) {
      if (m.config_index != baseline_) return m.config_index;
    }
    ADD_FAILURE() << "the replay measured only the baseline";
    return baseline_;
  }

  fs::path dir_;
  std::string spec_, recording_, db_;
  uint64_t baseline_ = 0;
  std::map<std::string, double> counters_;
  SearchOutcome outcome_;
};

TEST_F(StoredAnalysisTest, AReplayStoresTheRecordingsCountersWithTheMeasurement) {
  const AnalysisOutcome a = stored_analysis(db_, outcome_.workload, baseline_, outcome_.spec);
  ASSERT_TRUE(a.profiled) << a.message;
  EXPECT_TRUE(a.stored);
  EXPECT_EQ(a.source, "ncu");
  EXPECT_EQ(a.profile_s, 3.5);
  EXPECT_EQ(a.counters, counters_);
  EXPECT_EQ(a.step, "shared memory");
  ASSERT_EQ(a.knobs.size(), 1u);
  EXPECT_EQ(a.knobs[0].first, "padding");
  EXPECT_EQ(a.knobs[0].second, std::vector<std::string>{"PAD"});
  // The body is gputune analyze's, word for word, judged against the copy bandwidth the replay
  // stored for its device (the synthetic GPU's 3000 GB/s).
  BottleneckThresholds limits;
  limits.copy_bandwidth_gbs = 3000;
  const std::string body =
      format_bottleneck_report(classify_bottleneck(counters_, 0, 0, 0, limits), outcome_.spec);
  EXPECT_NE(body.find("56.8% of the measured copy bandwidth (3000 GB/s)"), std::string::npos)
      << body;
  const std::string heading = "Variant TX=32 TY=8 UNROLL=1 VEC=1 PAD=0 block_order=row";
  EXPECT_EQ(a.report, heading + " (stored ncu counters)\n" + body);
  // Shares for the plot: stalls sum to 1, throughputs end with the busiest pipe.
  double total = 0;
  for (const auto& [reason, share] : a.stall_shares) total += share;
  EXPECT_NEAR(total, 1.0, 1e-9);
  ASSERT_EQ(a.throughput_pct.size(), 4u);
  EXPECT_EQ(a.throughput_pct[0].first, "DRAM");
  EXPECT_EQ(a.throughput_pct[3].first.rfind("pipe ", 0), 0u);
}

TEST_F(StoredAnalysisTest, WithoutTheSpecTheWorkloadsFileNamesTheKnobs) {
  const AnalysisOutcome a = stored_analysis(db_, outcome_.workload, baseline_);
  ASSERT_TRUE(a.profiled) << a.message;
  ASSERT_EQ(a.knobs.size(), 1u);
  EXPECT_EQ(a.knobs[0].second, std::vector<std::string>{"PAD"});
}

TEST_F(StoredAnalysisTest, ASpecThatIsGoneNamesNoKnobsAndSaysWhy) {
  fs::remove(spec_);
  const AnalysisOutcome a = stored_analysis(db_, outcome_.workload, baseline_);
  ASSERT_TRUE(a.profiled) << a.message;
  EXPECT_TRUE(a.knobs.empty());
  EXPECT_NE(a.report.find("no knobs are named"), std::string::npos) << a.report;
}

TEST_F(StoredAnalysisTest, ReplayingAgainKeepsOneProfile) {
  SearchRequest again;
  again.replay = recording_;
  again.db = db_;
  again.strategy = "random";
  again.seed = 3;
  again.budget = "12";
  search(again);
  auto store = open_sqlite_store(db_, true);
  EXPECT_EQ(store->all_counters(outcome_.workload).size(), 1u);
}

TEST_F(StoredAnalysisTest, WithoutCountersTheMessageSaysHowToTakeThem) {
  const AnalysisOutcome a = stored_analysis(db_, outcome_.workload, another_measured());
  EXPECT_FALSE(a.profiled);
  EXPECT_TRUE(a.report.empty());
  EXPECT_NE(a.message.find("no counters stored for "), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("gputune analyze "), std::string::npos) << a.message;
  EXPECT_NE(a.message.find(" --set n=1024 --config "), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("--db " + db_), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("gputune.analyze(\""), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("\", config={\""), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("\"block_order\": \""), std::string::npos) << a.message;
}

TEST_F(StoredAnalysisTest, AConfigNeverMeasuredOrAWorkloadNotStoredIsAMisuse) {
  std::set<uint64_t> measured;
  for (const Measurement& m : outcome_.evaluated) measured.insert(m.config_index);
  uint64_t never = 0;
  while (measured.count(never)) ++never;
  EXPECT_THROW(stored_analysis(db_, outcome_.workload, never), Error);
  EXPECT_THROW(stored_analysis(db_, outcome_.workload + 99, baseline_), Error);
  EXPECT_THROW(stored_analysis((dir_ / "none.db").string(), 1, 0), Error);
}

// `gputune analyze` judges DRAM against the copy bandwidth the database holds for the
// workload's device (the replay stored the synthetic GPU's 3000 GB/s); without the workload
// in the database, against the theoretical peak alone.
TEST_F(StoredAnalysisTest, AnalyzeJudgesDramAgainstTheDatabasesCopyBandwidth) {
  const fs::path ncu = dir_ / "ncu";
  std::ofstream(ncu) << "#!/bin/sh\ncat '" << test::source_dir()
                     << "/tests/fixtures/ncu/copy.raw.csv'\n";
  fs::permissions(ncu, fs::perms::owner_all);
  AnalyzeRequest request;
  request.spec = spec_;
  request.db = db_;
  request.ncu = ncu.string();
  request.self = "/bin/true";
  const AnalysisOutcome known = analyze(request);
  ASSERT_TRUE(known.profiled) << known.message;
  EXPECT_EQ(known.step, "global memory");
  EXPECT_EQ(known.verdict.rfind("memory bound at the bandwidth limit: DRAM at 3021 GB/s, 100.7% "
                                "of the measured copy bandwidth (3000 GB/s",
                                0),
            0u)
      << known.verdict;
  EXPECT_EQ(known.key_number, "DRAM 3021 GB/s, 100.7% of copy");

  request.db = (dir_ / "empty.db").string();
  const AnalysisOutcome unknown = analyze(request);
  ASSERT_TRUE(unknown.profiled) << unknown.message;
  EXPECT_EQ(unknown.verdict.rfind("memory bound: DRAM at 90.1% of peak", 0), 0u) << unknown.verdict;
}

TEST(CounterMeaningTest, EveryMetricOfTheMethodHasItsStepAndUnit) {
  for (const std::string& metric : bottleneck_metrics()) {
    if (metric == "gpu__time_duration.sum") continue;
    EXPECT_FALSE(counter_meaning(metric).step.empty()) << metric;
  }
  EXPECT_EQ(counter_meaning("gpu__time_duration.sum").unit, "ns");
  EXPECT_EQ(counter_meaning("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed").unit, "%");
  EXPECT_EQ(counter_meaning("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum").step,
            "shared memory");
  EXPECT_EQ(
      counter_meaning("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio").step,
      "execution dependency");
  EXPECT_EQ(counter_meaning("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active").step,
            "instructions");
  EXPECT_EQ(counter_meaning("something__else.sum").step, "");
}

// `gputune analyze --stored`: the request names the variant as analyze does (--baseline, --config,
// --best), and what the database holds answers it; nothing is profiled, no GPU is needed.
TEST_F(StoredAnalysisTest, AnalyzeStoredReadsTheDatabaseAsAnalyzeNamesTheVariant) {
  AnalyzeRequest request;
  request.spec = spec_;
  request.db = db_;
  request.stored = true;
  const AnalysisOutcome baseline = analyze(request);  // the baseline: the default
  EXPECT_TRUE(baseline.profiled) << baseline.message;
  EXPECT_TRUE(baseline.stored);
  EXPECT_NE(baseline.report.find("stored ncu counters"), std::string::npos) << baseline.report;
  EXPECT_EQ(baseline.counters.size(), counters_.size());

  const Problem problem(open_spec(spec_));
  const std::optional<Config> config = config_from_json(problem.space().json(another_measured()));
  ASSERT_TRUE(config.has_value());
  for (const auto& [name, value] : *config) {
    request.config += (request.config.empty() ? "" : ",") + name + "=" + value.text();
  }
  const AnalysisOutcome unprofiled = analyze(request);
  EXPECT_FALSE(unprofiled.profiled);
  EXPECT_NE(unprofiled.message.find("no counters stored"), std::string::npos) << unprofiled.message;

  request.config.clear();
  request.overrides = {{"n", "2048"}};
  try {
    analyze(request);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("measured at n=1024, not at n=2048"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "none.db"));
  request.overrides.clear();
  request.db = (dir_ / "none.db").string();
  EXPECT_THROW(analyze(request), Error);
  EXPECT_FALSE(fs::exists(dir_ / "none.db")) << "--stored never creates a database";
}

}  // namespace
}  // namespace gputune
