// Racing (docs/racing.md) through the search, with a scripted runner that times like the GPU
// runner does: samples one at a time, until enough or the race is lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "replay/replay.h"
#include "search/report.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "support/fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::FakeCompiler;

// Ten samples in full, unless the candidate's race is lost first.
class TenSamples : public StoppingRule {
 public:
  bool warmed_up(double, bool) const override { return true; }
  bool enough(const std::vector<double>& samples_ms, double) const override {
    return samples_ms.size() >= 10;
  }
};

class ScriptedRunner : public Runner {
 public:
  // The time of a variant's `run`-th measurement (0 for the first).
  std::function<double(uint64_t index, int run)> time_of;
  std::vector<uint64_t> ran;
  std::map<uint64_t, int> runs;

  const DeviceInfo& device() const override { return device_; }
  Measurement set_reference(const Candidate& baseline) override { return measure(baseline); }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out;
    for (const Candidate& c : batch) {
      ran.push_back(c.variant.index);
      out.push_back(measure(c));
    }
    return out;
  }
  double measure_copy_bandwidth() override { return 3000; }

 private:
  Measurement measure(const Candidate& c) {
    const double t = time_of(c.variant.index, runs[c.variant.index]++);
    int sample = 0;
    const TimedSamples timed = collect_samples(
        TenSamples(), [] {}, [&] { return t * (1 + 0.002 * (sample++ % 3 - 1)); }, c.race,
        [] { return 0.0; });
    Measurement m;
    m.config_index = c.variant.index;
    m.config = c.variant.config;
    m.samples_ms = timed.samples_ms;
    m.cut_short = timed.cut_short;
    return m;
  }
  DeviceInfo device_{};
};

// Index 0 is the baseline (A=1). Batches of 4 race against the best known when they start:
// indices 1-4 against the baseline (2.0 ms), 5-7 against index 1 (1.0 ms), with a 10% margin.
const std::vector<double> kTimes = {2.0, 1.0, 1.05, 3.0, 1.5, 1.02, 1.3, 1.08};

class RacingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_racing_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
    problem_ = std::make_unique<Problem>(parse_spec(R"(kernel: {source: k.cu, name: k}
problem: {n: 64}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [32], grid: [2]}
parameters: {A: [1, 2, 3, 4, 5, 6, 7, 8]}
baseline: {A: 1}
)",
                                                    (dir_ / "spec.yaml").string(), {}));
    runner_.time_of = [](uint64_t index, int) { return kTimes[index]; };
  }
  void TearDown() override { fs::remove_all(dir_); }

  static SearchOptions racing() {
    SearchOptions options;
    options.strategy = "brute_force";
    options.racing.enabled = true;
    options.racing.margin = 0.10;
    return options;
  }
  std::map<uint64_t, Measurement> stored(int64_t workload) const {
    std::map<uint64_t, Measurement> out;
    for (Measurement& m : store_->measured(workload)) out[m.config_index] = std::move(m);
    return out;
  }

  fs::path dir_;
  std::unique_ptr<Problem> problem_;
  ScriptedRunner runner_;
  FakeCompiler compiler_;
  std::unique_ptr<Store> store_ = open_sqlite_store(":memory:");
};

TEST_F(RacingTest, CutsOnlyVariantsWhoseSamplesCannotComeWithinTheMargin) {
  SearchResult result = run_search(*problem_, runner_, compiler_, *store_, racing());
  const auto by_index = stored(result.workload);
  ASSERT_EQ(by_index.size(), 8u);
  // 3.0 ms against 2.0 and 1.3 ms against 1.0: cut after 3 samples. 1.5 ms raced against
  // the baseline's 2.0 and 1.02, 1.05 and 1.08 ms are within 10% of the best: in full.
  for (uint64_t cut : {3u, 6u}) {
    EXPECT_EQ(by_index.at(cut).cut_short, 1) << cut;
    EXPECT_EQ(by_index.at(cut).samples_ms.size(), 3u) << cut;
  }
  for (uint64_t full : {0u, 2u, 4u, 7u}) {
    EXPECT_EQ(by_index.at(full).cut_short, 0) << full;
    EXPECT_GE(by_index.at(full).samples_ms.size(), 10u) << full;  // 30 for the top three
  }
}

TEST_F(RacingTest, ACutVariantIsNeverRankedAsAFullMeasurement) {
  SearchResult result = run_search(*problem_, runner_, compiler_, *store_, racing());
  const Report report =
      make_report("t", result.device, 0, result.baseline, store_->measured(result.workload), {});
  std::vector<uint64_t> order;
  for (const ReportRow& row : report.ok) order.push_back(row.measurement.config_index);
  // The cut 1.3 ms variant comes after the full 1.5 and 2.0 ms ones.
  const std::vector<uint64_t> expected = {1, 5, 2, 7, 4, 0, 6, 3};
  EXPECT_EQ(order, expected);
  const std::string table = format_table(report, 10);
  EXPECT_NE(table.find("(cut short: 3 samples)"), std::string::npos) << table;
  EXPECT_NE(table.find("racing: 2 variants cut short"), std::string::npos) << table;
  EXPECT_NE(table.find("final: the 3 fastest re-measured in 3 interleaved rounds"),
            std::string::npos)
      << table;
}

TEST_F(RacingTest, TheStoresBestIsNeverACutVariant) {
  const int64_t workload = store_->workload({"h", "s", "p", "", "k", "{}", {}, "nvrtc"});
  Measurement full, cut;
  full.config_index = 1;
  full.samples_ms = {2.0};
  cut.config_index = 2;
  cut.samples_ms = {1.0};
  cut.cut_short = 1;
  store_->commit(workload, {full, cut});
  const auto workloads = store_->workloads();
  ASSERT_EQ(workloads.size(), 1u);
  ASSERT_TRUE(workloads[0].best.has_value());
  EXPECT_EQ(workloads[0].best->config_index, 1u);
  EXPECT_EQ(stored(workload).at(2).cut_short, 1);  // the flag survives the store
}

TEST_F(RacingTest, TheTopThreeAreReMeasuredRoundRobinAndDecideTheWinner) {
  // Index 1 was lucky in the search: measured again, it takes 1.04 ms.
  runner_.time_of = [](uint64_t index, int run) {
    return index == 1 && run > 0 ? 1.04 : kTimes[index];
  };
  SearchResult result = run_search(*problem_, runner_, compiler_, *store_, racing());
  ASSERT_GE(runner_.ran.size(), 9u);
  const std::vector<uint64_t> last(runner_.ran.end() - 9, runner_.ran.end());
  const std::vector<uint64_t> rounds = {1, 5, 2, 5, 2, 1, 2, 1, 5};
  EXPECT_EQ(last, rounds);
  ASSERT_EQ(result.final_measurements.size(), 3u);
  EXPECT_EQ(result.final_measurements[0].config_index, 5u);
  const auto by_index = stored(result.workload);
  for (uint64_t top : {1u, 2u, 5u}) {
    EXPECT_EQ(by_index.at(top).final_rounds, 3) << top;
    EXPECT_EQ(by_index.at(top).samples_ms.size(), 30u) << top;
  }
  EXPECT_EQ(store_->workloads()[0].best->config_index, 5u);
}

TEST_F(RacingTest, FullSamplingCutsNothingAndReMeasuresNothing) {
  SearchResult result = run_search(*problem_, runner_, compiler_, *store_, SearchOptions{});
  for (const auto& [index, m] : stored(result.workload)) {
    EXPECT_EQ(m.cut_short, 0) << index;
    EXPECT_EQ(m.final_rounds, 0) << index;
  }
  EXPECT_EQ(runner_.ran.size(), 7u);
}

TEST_F(RacingTest, AResumedRaceReusesCutVariantsAndFullSamplingMeasuresThemAgain) {
  SearchResult first = run_search(*problem_, runner_, compiler_, *store_, racing());
  runner_.ran.clear();
  SearchResult again = run_search(*problem_, runner_, compiler_, *store_, racing());
  // Nothing runs again, not even the final rounds: the top three were decided by them (the
  // README's promise; every completed rerun measured them once more before).
  EXPECT_EQ(again.record.evaluated, 0);
  EXPECT_TRUE(runner_.ran.empty()) << runner_.ran.size();
  EXPECT_TRUE(again.final_measurements.empty());

  runner_.ran.clear();
  run_search(*problem_, runner_, compiler_, *store_, SearchOptions{});
  std::vector<uint64_t> ran = runner_.ran;
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, (std::vector<uint64_t>{3, 6}));
  for (const auto& [index, m] : stored(first.workload)) EXPECT_EQ(m.cut_short, 0) << index;
}

TEST(ReplayRacing, ServesTheRecordedSamplesOneAtATimeAndCutsAPrefix) {
  Recording recording;
  Measurement m;
  m.config_index = 4;
  m.samples_ms = {3.0, 2.9, 3.1, 3.0, 2.95, 3.05, 3.0, 3.0, 3.0, 3.0};
  recording.measurements.push_back(m);
  auto runner = make_replay_runner(recording);
  Candidate c;
  c.variant.index = 4;
  const Measurement full = runner->run({c})[0];
  EXPECT_EQ(full.samples_ms, m.samples_ms);
  EXPECT_EQ(full.cut_short, 0);
  c.race = RaceLimit{2.2, 3};
  const Measurement cut = runner->run({c})[0];
  EXPECT_EQ(cut.samples_ms, std::vector<double>(m.samples_ms.begin(), m.samples_ms.begin() + 3));
  EXPECT_EQ(cut.cut_short, 1);
  c.race = RaceLimit{3.5, 3};  // within the margin: every recorded sample, again
  EXPECT_EQ(runner->run({c})[0].samples_ms, m.samples_ms);
}

}  // namespace
}  // namespace gputune
