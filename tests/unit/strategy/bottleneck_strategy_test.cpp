#include "strategy/bottleneck_strategy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "replay/replay.h"
#include "strategy/registry.h"
#include "support/synthetic_recording.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Says the same bottleneck of every variant, at a fixed cost, on a clock the test sets (or
// none: the strategy then adds up the measurements' times).
class FakeProfiler : public VariantProfiler {
 public:
  FakeProfiler(std::vector<std::string> knobs, double cost_s)
      : knobs_(std::move(knobs)), cost_s_(cost_s) {}
  std::optional<double> elapsed_s() const override { return clock_s; }
  double expected_cost_s(uint64_t) const override { return cost_s_; }
  VariantProfile profile(const Measurement& m) override {
    asked.push_back(m.config_index);
    VariantProfile p;
    p.cost_s = cost_s_;
    if (unavailable) {
      p.message = "ncu not found";
      p.unavailable = true;
      return p;
    }
    p.ok = true;
    p.step = "shared memory";
    for (const auto& knob : knobs_) p.knobs.push_back(parse_remedy_knob(knob));
    return p;
  }

  std::optional<double> clock_s;
  bool unavailable = false;
  std::vector<uint64_t> asked;

 private:
  std::vector<std::string> knobs_;
  double cost_s_;
};

class BottleneckStrategyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("gputune_bottleneck_test_" + std::to_string(getpid())));
    const std::string spec = testing::write_synthetic_spec(*dir_);
    auto store = open_sqlite_store(":memory:");
    recording_ = new Recording(testing::record_synthetic(*store, spec, 4096, 0));
    problem_ = new Problem(recording_problem(*recording_, test::source_dir()));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete problem_;
    delete recording_;
    delete dir_;
  }

  struct Trace {
    std::vector<uint64_t> proposed;
    double measure_s = 0;  // the measurements' own times
  };

  // Runs `strategy` against the recording for `cap` evaluations, as the search does: propose,
  // measure, observe, then the strategy's GPU work.
  static Trace replay(Strategy& strategy, VariantProfiler* profiler, size_t cap,
                      FakeProfiler* clock_of = nullptr, uint64_t planned_evaluations = 0) {
    std::unordered_map<uint64_t, Measurement> by_index;
    for (const auto& m : recording_->measurements) by_index[m.config_index] = m;
    StrategyContext context(problem_->space());
    context.profiler = profiler;
    context.planned_evaluations = planned_evaluations;
    strategy.start(context);
    Trace trace;
    while (trace.proposed.size() < cap) {
      const auto proposal = strategy.propose(4);
      if (proposal.empty()) break;
      std::vector<Measurement> results;
      for (uint64_t index : proposal) {
        trace.proposed.push_back(index);
        results.push_back(by_index.at(index));
      }
      for (const auto& m : results) {
        trace.measure_s += (m.compile_ms + m.check_ms + m.time_ms) / 1000;
        if (clock_of != nullptr) *clock_of->clock_s += 1.0;  // a second per evaluation
      }
      strategy.observe(results);
      if (strategy.wants_idle_gpu()) strategy.use_idle_gpu();
    }
    return trace;
  }

  static fs::path* dir_;
  static Recording* recording_;
  static Problem* problem_;
};
fs::path* BottleneckStrategyTest::dir_ = nullptr;
Recording* BottleneckStrategyTest::recording_ = nullptr;
Problem* BottleneckStrategyTest::problem_ = nullptr;

TEST(BottleneckStrategyRegistry, IsRegistered) {
  const auto names = strategy_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "bottleneck"), names.end());
  EXPECT_NE(make_strategy("bottleneck", 1), nullptr);
}

TEST_F(BottleneckStrategyTest, EachBatchAfterAVerdictAppliesItsRemedyTheAdvisedWay) {
  // The verdict says "raise TY": once a variant is profiled, the first proposal of each batch
  // differs from it in TY alone, with a larger TY, until no such config is left.
  const SearchSpace& space = problem_->space();
  const int ty = space.dimension_index("TY");
  for (const char* knob : {"+TY", "-TY"}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      FakeProfiler profiler({knob}, 0.0);
      BottleneckStrategy bottleneck(seed);
      StrategyContext context(space);
      context.profiler = &profiler;
      bottleneck.start(context);
      std::unordered_map<uint64_t, Measurement> by_index;
      for (const auto& m : recording_->measurements) by_index[m.config_index] = m;
      size_t moves = 0;
      for (int batch = 0; batch < 12; ++batch) {
        const std::optional<uint64_t> steering = bottleneck.stats().steering;
        const size_t before = bottleneck.stats().remedy_moves;
        const auto proposal = bottleneck.propose(4);
        ASSERT_FALSE(proposal.empty());
        if (bottleneck.stats().remedy_moves > before) {
          ASSERT_TRUE(steering.has_value());
          const auto from = space.decode(*steering), to = space.decode(proposal[0]);
          for (size_t d = 0; d < from.size(); ++d) {
            if (static_cast<int>(d) != ty) EXPECT_EQ(from[d], to[d]) << knob << " seed " << seed;
          }
          const double a = space.dimensions()[ty].values[from[ty]].as_number();
          const double b = space.dimensions()[ty].values[to[ty]].as_number();
          EXPECT_TRUE(knob[0] == '+' ? b > a : b < a) << knob << ": TY " << a << " -> " << b;
          ++moves;
        }
        std::vector<Measurement> results;
        for (uint64_t index : proposal) results.push_back(by_index.at(index));
        bottleneck.observe(results);
        if (bottleneck.wants_idle_gpu()) bottleneck.use_idle_gpu();
      }
      EXPECT_GT(bottleneck.stats().profiled, 0u);
      EXPECT_EQ(bottleneck.stats().step, "shared memory");
      EXPECT_GT(moves, 0u) << knob << " seed " << seed;
      EXPECT_EQ(moves, bottleneck.stats().remedy_moves);
    }
  }
}

TEST_F(BottleneckStrategyTest, AVerdictWithoutKnobsOfThisSpaceLeavesTheModelAlone) {
  FakeProfiler profiler({"NOT_A_KNOB"}, 0.0);
  BottleneckStrategy bottleneck(5);
  ModelStrategy model(5);
  EXPECT_EQ(replay(bottleneck, &profiler, 40).proposed, replay(model, nullptr, 40).proposed);
  EXPECT_GT(bottleneck.stats().profiled, 0u);
  EXPECT_EQ(bottleneck.stats().remedy_moves, 0u);
}

TEST_F(BottleneckStrategyTest, WithoutAProfilerItIsTheModel) {
  BottleneckStrategy bottleneck(3);
  ModelStrategy model(3);
  EXPECT_EQ(replay(bottleneck, nullptr, 40).proposed, replay(model, nullptr, 40).proposed);
}

TEST_F(BottleneckStrategyTest, ProfilingStaysWithinTenPercentOfTheMeasuredTime) {
  // Without a clock the budget is a share of the measurements' own times (a replay).
  const Trace probe = replay(*make_strategy("random", 1), nullptr, 60);
  const double per_evaluation = probe.measure_s / 60;
  FakeProfiler profiler({"TY"}, 2 * per_evaluation);  // affordable every 20 evaluations
  BottleneckStrategy bottleneck(1);
  const Trace trace = replay(bottleneck, &profiler, 60);
  EXPECT_GE(bottleneck.stats().profiled, 1u);
  EXPECT_LT(bottleneck.stats().profiled, 15u);  // not every batch
  EXPECT_LE(bottleneck.stats().profile_s, 0.10 * trace.measure_s + 1e-9);
}

TEST_F(BottleneckStrategyTest, ProfilingStaysWithinTenPercentOfTheWallClock) {
  FakeProfiler profiler({"TY"}, 3.0);
  profiler.clock_s = 0.0;
  BottleneckStrategy bottleneck(2);
  replay(bottleneck, &profiler, 80, &profiler);
  // 80 s of searching allows 8 s of profiling: two profiles of 3 s, at 30 s and 60 s at best.
  EXPECT_GE(bottleneck.stats().profiled, 1u);
  EXPECT_LE(bottleneck.stats().profiled, 2u);
  EXPECT_LE(bottleneck.stats().profile_s, 0.10 * *profiler.clock_s);
  EXPECT_EQ(profiler.asked.size(), bottleneck.stats().profiled);
}

TEST_F(BottleneckStrategyTest, WithAPlanTheBudgetIsSpentEarlyAndStaysWithinTenPercentOfIt) {
  // A search planned for 80 evaluations at a second each may profile for 8 s: two profiles of
  // 3 s, the first as soon as a batch is measured rather than after 30 s.
  FakeProfiler profiler({"TY"}, 3.0);
  profiler.clock_s = 0.0;
  BottleneckStrategy bottleneck(2);
  replay(bottleneck, &profiler, 80, &profiler, 80);
  EXPECT_EQ(bottleneck.stats().profiled, 2u);
  EXPECT_LE(bottleneck.stats().profile_s, 0.10 * 80);
  // The plan: the time per evaluation so far (this clock counts no profile) times 80.
  EXPECT_GT(bottleneck.stats().planned_s, 40.0);
  EXPECT_LE(bottleneck.stats().planned_s, 80.0);

  FakeProfiler early({"TY"}, 3.0);
  early.clock_s = 0.0;
  BottleneckStrategy planned(2);
  replay(planned, &early, 8, &early, 80);
  EXPECT_EQ(planned.stats().profiled, 1u) << "profiled within the first two batches";
  EXPECT_LE(planned.stats().elapsed_s, 8.0);
}

TEST_F(BottleneckStrategyTest, APlanTakesThePaceAfterTheFirstResultsNotTheStartup) {
  // A pipelined search: 5 s until the first results (startup, the first compiles), then 0.1 s
  // per evaluation. Planned for 400 evaluations it lasts about 45 s, which leaves room for one
  // profile of 3 s; judged by the first batch's pace (1.25 s each) it would seem to last 500 s.
  FakeProfiler profiler({"TY"}, 3.0);
  profiler.clock_s = 5.0;
  BottleneckStrategy bottleneck(6);
  StrategyContext context(problem_->space());
  context.profiler = &profiler;
  context.planned_evaluations = 400;
  bottleneck.start(context);
  std::unordered_map<uint64_t, Measurement> by_index;
  for (const auto& m : recording_->measurements) by_index[m.config_index] = m;
  for (int batch = 0; batch < 100; ++batch) {
    std::vector<Measurement> results;
    for (uint64_t index : bottleneck.propose(4)) results.push_back(by_index.at(index));
    bottleneck.observe(results);
    if (bottleneck.wants_idle_gpu()) {
      bottleneck.use_idle_gpu();
      *profiler.clock_s += 3.0;
    }
    *profiler.clock_s += 0.4;
  }
  EXPECT_EQ(bottleneck.stats().profiled, 1u);
  EXPECT_LE(bottleneck.stats().profile_s, 0.10 * *profiler.clock_s);
}

TEST_F(BottleneckStrategyTest, AnUnavailableProfilerIsAskedOnceAndTheSearchGoesOn) {
  FakeProfiler profiler({"TY"}, 0.0);
  profiler.unavailable = true;
  BottleneckStrategy bottleneck(4);
  const Trace trace = replay(bottleneck, &profiler, 40);
  EXPECT_EQ(trace.proposed.size(), 40u);
  EXPECT_EQ(profiler.asked.size(), 1u);
  EXPECT_EQ(bottleneck.stats().profiled, 0u);
  EXPECT_EQ(bottleneck.stats().message, "ncu not found");
}

}  // namespace
}  // namespace gputune
