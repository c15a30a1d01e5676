// The rules' pick as every strategy's first variant, and `--strategy rules`: the pick, then its
// neighbourhood best first, then the model. On the space of the naive transpose's engine knobs
// (bench/engine/transpose.yaml), with made-up times.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "space/problem.h"
#include "space/rule_pick.h"
#include "spec/spec_loader.h"
#include "strategy/first_configs.h"
#include "strategy/registry.h"
#include "test_paths.h"

namespace gputune {
namespace {

const Problem& transpose() {
  static const Problem problem(load_spec(test::source_dir() + "/bench/engine/transpose.yaml"));
  return problem;
}

// A time per config: `fastest` takes 1 ms, `second` 1.5 ms, the others more, by a hash of
// their index.
Measurement measure(uint64_t index, uint64_t fastest, uint64_t second) {
  Measurement m;
  m.config_index = index;
  m.samples_ms = {index == fastest  ? 1.0
                  : index == second ? 1.5
                                    : 2.0 + static_cast<double>((index * 2654435761u) % 997)};
  return m;
}

// Proposals of `strategy`, measured a batch at a time, until it stops or `cap` configs.
std::vector<uint64_t> run(Strategy& strategy, const StrategyContext& context, uint64_t fastest,
                          size_t cap = 1000, uint64_t second = ~uint64_t{0}) {
  strategy.start(context);
  std::vector<uint64_t> proposed;
  while (proposed.size() < cap) {
    const std::vector<uint64_t> batch = strategy.propose(4);
    if (batch.empty()) break;
    std::vector<Measurement> results;
    for (uint64_t index : batch) {
      proposed.push_back(index);
      results.push_back(measure(index, fastest, second));
    }
    strategy.observe(results);
  }
  return proposed;
}

TEST(RulesFirst, EveryStrategyProposesTheRulesPickFirstAndNeverAgain) {
  const Problem& problem = transpose();
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  StrategyContext context(problem.space());
  context.first_configs = {pick->config_index};
  for (const std::string& name : strategy_names()) {
    auto strategy = proposing_first_configs(make_strategy(name, 7));
    const std::vector<uint64_t> proposed = run(*strategy, context, pick->config_index, 60);
    ASSERT_FALSE(proposed.empty()) << name;
    EXPECT_EQ(proposed[0], pick->config_index) << name;
    EXPECT_EQ(std::count(proposed.begin(), proposed.end(), pick->config_index), 1) << name;
  }
}

TEST(RulesFirst, WithoutFirstConfigsTheWrappedStrategyIsUnchanged) {
  const Problem& problem = transpose();
  StrategyContext context(problem.space());
  auto plain = make_strategy("model", 3);
  auto wrapped = proposing_first_configs(make_strategy("model", 3));
  EXPECT_EQ(run(*plain, context, 5, 40), run(*wrapped, context, 5, 40));
}

TEST(RulesStrategy, ThePickThenItsNeighboursBestFirstThenTheModelOnTheRest) {
  const Problem& problem = transpose();
  const SearchSpace& space = problem.space();
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  StrategyContext context(space);
  context.first_configs = {pick->config_index};
  // The pick is the fastest: its neighbourhood is measured whole, then the model takes over.
  auto rules = make_strategy("rules", 11);
  const std::vector<uint64_t> proposed = run(*rules, context, pick->config_index);
  ASSERT_FALSE(proposed.empty());
  EXPECT_EQ(proposed[0], pick->config_index);
  const std::vector<uint64_t> around = space.neighbours(pick->config_index);
  ASSERT_FALSE(around.empty());
  const std::set<uint64_t> first(proposed.begin() + 1, proposed.begin() + 1 + around.size());
  EXPECT_EQ(first, std::set<uint64_t>(around.begin(), around.end()));
  // Then the rest of the space, each valid config once.
  EXPECT_EQ(std::unordered_set<uint64_t>(proposed.begin(), proposed.end()).size(), proposed.size());
  EXPECT_EQ(proposed.size(), space.count_valid());
}

TEST(RulesStrategy, AFasterNeighbourMovesTheClimbToItsNeighbourhood) {
  const Problem& problem = transpose();
  const SearchSpace& space = problem.space();
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  const std::vector<uint64_t> around = space.neighbours(pick->config_index);
  ASSERT_FALSE(around.empty());
  const uint64_t better = around.back();  // measured last of them: the climb stays till then
  StrategyContext context(space);
  context.first_configs = {pick->config_index};
  auto rules = make_strategy("rules", 11);
  const std::vector<uint64_t> proposed = run(*rules, context, better, 100, pick->config_index);
  // After the pick's neighbourhood, the faster neighbour's neighbours not measured yet.
  std::set<uint64_t> seen(proposed.begin(), proposed.begin() + 1 + around.size());
  std::set<uint64_t> expected;
  for (uint64_t index : space.neighbours(better)) {
    if (!seen.count(index)) expected.insert(index);
  }
  ASSERT_FALSE(expected.empty());
  ASSERT_GE(proposed.size(), 1 + around.size() + expected.size());
  const auto from = proposed.begin() + 1 + around.size();
  EXPECT_EQ(std::set<uint64_t>(from, from + expected.size()), expected);
}

TEST(RulesStrategy, WithoutAPickItIsTheModel) {
  const Problem& problem = transpose();
  StrategyContext context(problem.space());
  auto rules = make_strategy("rules", 4);
  auto model = make_strategy("model", 4);
  EXPECT_EQ(run(*rules, context, 9, 40), run(*model, context, 9, 40));
}

}  // namespace
}  // namespace gputune
