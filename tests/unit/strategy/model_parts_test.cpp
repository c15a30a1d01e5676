// The model strategy's parts: acquisition, candidate pool, workload features, prior ranking,
// and the context's cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "strategy/acquisition.h"
#include "strategy/candidate_pool.h"
#include "strategy/model_strategy.h"
#include "strategy/observation_targets.h"
#include "strategy/prior_ranking.h"
#include "strategy/workload_features.h"

namespace gputune {
namespace {

SearchSpace grid(int64_t per_dimension) {
  std::vector<Dimension> dims;
  for (const char* name : {"A", "B"}) {
    dims.push_back({name, {}, false});
    for (int64_t v = 1; v <= per_dimension; ++v) dims.back().values.push_back(v);
  }
  Scope problem;
  return SearchSpace(dims, {"A != B"}, problem);
}

Measurement timed(const SearchSpace& space, uint64_t index) {
  auto v = space.values(index);
  Measurement m;
  m.config_index = index;
  m.config = space.json(index);
  m.samples_ms = {1 + std::pow(v[0].as_number() - 3, 2) + std::pow(v[1].as_number() - 5, 2)};
  return m;
}

TEST(Acquisition, ExpectedImprovementGrowsWithGainAndUncertainty) {
  EXPECT_DOUBLE_EQ(expected_improvement(1.0, 0.5, 0.0, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(expected_improvement(1.0, 2.0, 0.0, 0.0), 0.0);
  EXPECT_GT(expected_improvement(1.0, 2.0, 1.0, 0.0), 0.0);
  EXPECT_GT(expected_improvement(1.0, 0.5, 0.1, 0.0), expected_improvement(1.0, 0.8, 0.1, 0.0));
  double log_ms = 0;
  Measurement failed;
  failed.status = Status::kCompileError;
  EXPECT_FALSE(ok_log_time(failed, &log_ms));
  Measurement ok;
  ok.samples_ms = {std::exp(2.0)};
  ASSERT_TRUE(ok_log_time(ok, &log_ms));
  EXPECT_NEAR(log_ms, 2.0, 1e-12);
}

TEST(ObservationTargets, FailuresRankWorstAndPendingConfigsTakeTheMean) {
  std::vector<Observation> o(4);
  o[0].observed = o[0].ok = true;
  o[0].log_ms = 1;
  o[1].observed = o[1].ok = true;
  o[1].log_ms = 3;
  o[2].observed = true;     // a failure
  o[3].placeholder = true;  // pending
  ObservationTargets t = observation_targets(o, 0.5, false);
  EXPECT_DOUBLE_EQ(t.best, 1);
  EXPECT_DOUBLE_EQ(t.y(2), 3.5);
  EXPECT_DOUBLE_EQ(t.y(3), (1 + 3 + 3.5) / 3);
  EXPECT_DOUBLE_EQ(t.base.norm(), 0);
  for (auto& x : o) x.prior = 2 * x.log_ms;
  ObservationTargets with = observation_targets(o, 0.5, true);
  EXPECT_DOUBLE_EQ(with.b, 1);  // fewer than four ok results: the prior's scale is kept
  EXPECT_DOUBLE_EQ(with.a, (1 + 3 - 2 - 6) / 2.0);
  EXPECT_DOUBLE_EQ(with.y(3), with.base(3));
}

TEST(CandidatePool, EveryValidConfigUpToTheLimitElseASeededSortedSample) {
  SearchSpace space = grid(10);
  auto all = candidate_configs(space, 1000, 1);
  EXPECT_EQ(all.size(), space.count_valid());
  auto sample = candidate_configs(space, 20, 1);
  ASSERT_EQ(sample.size(), 20u);
  EXPECT_TRUE(std::is_sorted(sample.begin(), sample.end()));
  for (uint64_t index : sample) EXPECT_TRUE(space.valid(index));
  EXPECT_EQ(candidate_configs(space, 20, 1), sample);
  EXPECT_NE(candidate_configs(space, 20, 2), sample);
}

TEST(WorkloadFeatures, GeometryOnlyWithALaunchAndAnSmCount) {
  SearchSpace space = grid(4);
  StrategyContext context(space);
  context.problem_values = {{"n", 1024}};
  WorkloadFeatures plain(context);
  EXPECT_FALSE(plain.geometry());
  EXPECT_EQ(plain.width(), plain.base_width());
  context.launch = [](uint64_t, const std::vector<std::pair<std::string, double>>& values) {
    return std::optional<LaunchShape>(LaunchShape{values[0].second / 64, 128, 0});
  };
  context.sm_count = 132;
  WorkloadFeatures geometry(context);
  ASSERT_TRUE(geometry.geometry());
  EXPECT_GT(geometry.width(), geometry.base_width());
  // A prior workload's rows are taken at its own problem values.
  PriorData other;
  other.problem_values = {{"n", 4096}};
  EXPECT_EQ(geometry.values_of(other), std::vector<double>{4096});
  uint64_t index = 0;
  while (!space.valid(index)) ++index;
  auto here = geometry.row(index);
  auto there = geometry.prior_row(timed(space, index), geometry.values_of(other), 0);
  ASSERT_TRUE(there.has_value());
  EXPECT_EQ(here.size(), there->size());
  EXPECT_NE(here, *there);
}

// A cost model that remembers how often it was made: the context's factory is what the prior
// ranking fits.
TEST(PriorRanking, RanksCandidatesWithTheGivenCostModel) {
  SearchSpace space = grid(8);
  StrategyContext context(space);
  PriorData prior;
  for (uint64_t i = 0; i < space.size(); ++i) {
    if (space.valid(i)) prior.measurements.push_back(timed(space, i));
  }
  WorkloadFeatures features(context);
  std::vector<uint64_t> candidates = candidate_configs(space, 1000, 1);
  Eigen::MatrixXd x(candidates.size(), features.width());
  for (size_t r = 0; r < candidates.size(); ++r) {
    auto row = features.row(candidates[r]);
    x.row(r) = Eigen::Map<Eigen::RowVectorXd>(row.data(), row.size());
  }
  int made = 0;
  PriorRanking ranking(
      {300, 1.0},
      [&made]() -> std::unique_ptr<CostModel> {
        ++made;
        return std::make_unique<GaussianProcess>();
      },
      7);
  ASSERT_TRUE(ranking.fit({prior}, features, x));
  EXPECT_EQ(made, 1);
  EXPECT_EQ(ranking.used(), prior.measurements.size());
  // The best config of the prior data (A 3, B 5) comes first.
  auto best = space.values(candidates[ranking.order().front()]);
  EXPECT_EQ(best[0].as_number(), 3);
  EXPECT_EQ(best[1].as_number(), 5);
  EXPECT_FALSE(ranking.fit({PriorData{}}, features, x));
}

TEST(ModelStrategy, FitsItsPriorWithTheContextsCostModel) {
  SearchSpace space = grid(8);
  StrategyContext context(space);
  PriorData prior;
  for (uint64_t i = 0; i < space.size(); ++i) {
    if (space.valid(i)) prior.measurements.push_back(timed(space, i));
  }
  context.prior = {prior};
  int made = 0;
  context.cost_model = [&made]() -> std::unique_ptr<CostModel> {
    ++made;
    return std::make_unique<GaussianProcess>();
  };
  ModelStrategy strategy(1);
  strategy.start(context);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(strategy.stats().prior_used, prior.measurements.size());
  auto first = strategy.propose(1);
  ASSERT_EQ(first.size(), 1u);
  auto v = space.values(first[0]);
  EXPECT_EQ(v[0].as_number(), 3);
  EXPECT_EQ(v[1].as_number(), 5);
}

}  // namespace
}  // namespace gputune
