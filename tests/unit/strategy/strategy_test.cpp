#include <gtest/gtest.h>

#include <set>

#include "gputune/error.h"
#include "strategy/permutation.h"
#include "strategy/registry.h"
#include "strategy/strategy.h"

namespace gputune {
namespace {

SearchSpace make_space() {
  std::vector<Dimension> dims = {{"A", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}, false},
                                 {"B", {int64_t{1}, int64_t{2}, int64_t{3}}, false},
                                 {"C", {std::string("x"), std::string("y")}, true}};
  Scope problem;
  return SearchSpace(dims, {"A != B"}, problem);
}

std::vector<uint64_t> drain(Strategy& strategy, size_t batch) {
  std::vector<uint64_t> all;
  for (auto next = strategy.propose(batch); !next.empty(); next = strategy.propose(batch)) {
    all.insert(all.end(), next.begin(), next.end());
  }
  return all;
}

TEST(RandomPermutation, IsABijectionForAwkwardSizes) {
  for (uint64_t size : {1ull, 2ull, 3ull, 7ull, 96ull, 1000ull, 4097ull}) {
    RandomPermutation p(size, 42);
    std::set<uint64_t> seen;
    for (uint64_t i = 0; i < size; ++i) {
      uint64_t x = p(i);
      ASSERT_LT(x, size);
      seen.insert(x);
    }
    EXPECT_EQ(seen.size(), size) << "size " << size;
  }
}

TEST(RandomPermutation, SeedsGiveDifferentOrders) {
  RandomPermutation a(1000, 1), b(1000, 2);
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i) same += a(i) == b(i);
  EXPECT_LT(same, 50);
}

TEST(BruteForce, ProposesEveryValidConfigOnceInOrder) {
  SearchSpace space = make_space();
  auto strategy = make_strategy("brute_force", 0);
  strategy->start(StrategyContext(space));
  auto all = drain(*strategy, 5);
  ASSERT_EQ(all.size(), space.count_valid());
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1], all[i]);
  for (auto index : all) EXPECT_TRUE(space.valid(index));
}

TEST(Random, DeterministicForASeedAndCoversTheSpaceOnce) {
  SearchSpace space = make_space();
  auto first = make_strategy("random", 7), second = make_strategy("random", 7);
  first->start(StrategyContext(space));
  second->start(StrategyContext(space));
  auto a = drain(*first, 3), b = drain(*second, 4);
  EXPECT_EQ(a, b);
  std::set<uint64_t> unique(a.begin(), a.end());
  EXPECT_EQ(unique.size(), a.size());
  EXPECT_EQ(a.size(), space.count_valid());
  for (auto index : a) EXPECT_TRUE(space.valid(index));

  auto other = make_strategy("random", 8);
  other->start(StrategyContext(space));
  EXPECT_NE(drain(*other, 3), a);
  EXPECT_FALSE(std::is_sorted(a.begin(), a.end()));
}

TEST(Strategy, UnknownNameListsTheKnownOnes) {
  try {
    make_strategy("annealing-ish", 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("brute_force, random"), std::string::npos);
  }
}

// A strategy added the way every strategy is: one registrar in its own file (here, this one).
class EveryOtherStrategy : public Strategy {
 public:
  void start(const StrategyContext& context) override {
    space_ = &context.space;
    next_ = 0;
  }
  std::vector<uint64_t> propose(size_t max_batch) override {
    std::vector<uint64_t> batch;
    for (; batch.size() < max_batch && next_ < space_->size(); next_ += 2) {
      if (space_->valid(next_)) batch.push_back(next_);
    }
    return batch;
  }
  void observe(const std::vector<Measurement>&) override {}

 private:
  const SearchSpace* space_ = nullptr;
  uint64_t next_ = 0;
};

const StrategyRegistrar kEveryOther{
    {"every_other", 1000, [](uint64_t) { return std::make_unique<EveryOtherStrategy>(); }}};

TEST(StrategyRegistry, ListsTheBuiltInStrategiesByRankAndOneRegisteredElsewhere) {
  EXPECT_EQ(strategy_names(),
            (std::vector<std::string>{"brute_force", "random", "annealing", "genetic", "model",
                                      "bottleneck", "rules", "every_other"}));
  SearchSpace space = make_space();
  auto strategy = make_strategy("every_other", 0);
  strategy->start(StrategyContext(space));
  for (uint64_t index : drain(*strategy, 4)) EXPECT_EQ(index % 2, 0u);
}

TEST(StrategyRegistry, RefusesATakenNameAndAMissingFactory) {
  EXPECT_THROW(
      register_strategy({"random", 5, [](uint64_t) { return make_strategy("random", 1); }}), Error);
  EXPECT_THROW(register_strategy({"nameless_factory", 5, nullptr}), Error);
  EXPECT_EQ(strategy_names().size(), 8u);
}

}  // namespace
}  // namespace gputune
