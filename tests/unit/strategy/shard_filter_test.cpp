#include "strategy/shard_filter.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "strategy/strategy.h"

namespace gputune {
namespace {

SearchSpace make_space(size_t a, size_t b, const std::string& constraint) {
  std::vector<Value> as, bs;
  for (size_t i = 1; i <= a; ++i) as.emplace_back(static_cast<int64_t>(i));
  for (size_t i = 1; i <= b; ++i) bs.emplace_back(static_cast<int64_t>(i));
  Scope problem;
  return SearchSpace({{"A", as, false}, {"B", bs, false}}, {constraint}, problem);
}

std::vector<uint64_t> drain(Strategy& strategy, size_t batch) {
  std::vector<uint64_t> all;
  for (auto next = strategy.propose(batch); !next.empty(); next = strategy.propose(batch)) {
    EXPECT_LE(next.size(), batch);
    all.insert(all.end(), next.begin(), next.end());
  }
  return all;
}

TEST(Shard, ParsesKOfN) {
  const Shard shard = parse_shard("3/8", "--shard");
  EXPECT_EQ(shard.index, 3u);
  EXPECT_EQ(shard.count, 8u);
  EXPECT_EQ(shard.text(), "3/8");
  EXPECT_TRUE(shard.contains(11));
  EXPECT_FALSE(shard.contains(12));
  for (const char* bad : {"8/8", "1/0", "3", "a/4", "-1/4", "/4", "1/"}) {
    try {
      parse_shard(bad, "--shard");
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("--shard ") + bad), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("0 <= K < N"), std::string::npos);
    }
  }
}

// Property: for random spaces and shard counts, brute force restricted to each shard proposes
// every valid config exactly once between the shards.
TEST(ShardFilter, TheShardsOfASpaceCoverItExactlyOnce) {
  std::mt19937_64 random(7);
  const char* constraints[] = {"A != B", "A * B <= 24", "A % 3 == 0 or B == 2", "1"};
  for (int trial = 0; trial < 40; ++trial) {
    const SearchSpace space =
        make_space(1 + random() % 9, 1 + random() % 7, constraints[random() % 4]);
    const uint64_t count = 1 + random() % 10;
    const size_t batch = 1 + random() % 5;
    std::map<uint64_t, int> seen;
    for (uint64_t k = 0; k < count; ++k) {
      auto strategy = restrict_to_shard(make_strategy("brute_force", 0), Shard{k, count});
      StrategyContext context(space);
      strategy->start(context);
      for (uint64_t index : drain(*strategy, batch)) {
        EXPECT_EQ(index % count, k);
        ++seen[index];
      }
    }
    uint64_t valid = 0;
    for (uint64_t i = 0; i < space.size(); ++i) {
      if (!space.valid(i)) {
        EXPECT_EQ(seen.count(i), 0u) << i;
        continue;
      }
      ++valid;
      EXPECT_EQ(seen[i], 1) << "config " << i << " of trial " << trial;
    }
    EXPECT_EQ(seen.size(), valid);
  }
}

TEST(ShardFilter, TheWholeSpaceIsTheStrategyItself) {
  auto strategy = make_strategy("brute_force", 0);
  Strategy* raw = strategy.get();
  EXPECT_EQ(restrict_to_shard(std::move(strategy), Shard{}).get(), raw);
}

}  // namespace
}  // namespace gputune
