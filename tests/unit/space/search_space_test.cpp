#include "space/search_space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "gputune/error.h"

namespace gputune {
namespace {

Value sym(const char* text) { return Value(std::string(text)); }

// TILE (3) x PAD (2) x MERGE (4), MERGE fastest.
std::vector<Dimension> dims() {
  return {{"TILE", {int64_t{16}, int64_t{32}, int64_t{64}}, false},
          {"PAD", {int64_t{0}, int64_t{1}}, false},
          {"MERGE", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}, false}};
}

TEST(SearchSpace, MixedRadixLastDimensionFastest) {
  Scope problem;
  SearchSpace space(dims(), {}, problem);
  EXPECT_EQ(space.size(), 24u);
  EXPECT_EQ(space.decode(0), (std::vector<size_t>{0, 0, 0}));
  EXPECT_EQ(space.decode(1), (std::vector<size_t>{0, 0, 1}));
  EXPECT_EQ(space.decode(4), (std::vector<size_t>{0, 1, 0}));
  EXPECT_EQ(space.decode(8), (std::vector<size_t>{1, 0, 0}));
  EXPECT_EQ(space.decode(23), (std::vector<size_t>{2, 1, 3}));
  for (uint64_t i = 0; i < space.size(); ++i) EXPECT_EQ(space.encode(space.decode(i)), i);
  EXPECT_THROW(space.decode(24), Error);
  EXPECT_THROW(space.encode({0, 2, 0}), Error);
  EXPECT_THROW(space.encode({0, 0}), Error);
  EXPECT_EQ(space.values(13), (std::vector<Value>{int64_t{32}, int64_t{1}, int64_t{2}}));
  EXPECT_EQ(space.count_valid(), 24u);
}

TEST(SearchSpace, ConstraintsMatchABruteForceLoop) {
  Scope problem;
  problem.set("n", 48);
  // MERGE must divide TILE / 8 and the tile must divide n (so TILE=64 is out).
  SearchSpace space(dims(), {"(TILE / 8) % MERGE == 0", "n % TILE == 0"}, problem);
  uint64_t expected = 0;
  uint64_t index = 0;
  for (int tile : {16, 32, 64}) {
    for (int pad = 0; pad < 2; ++pad) {
      for (int merge : {1, 2, 4, 8}) {
        const bool ok = (tile / 8) % merge == 0 && 48 % tile == 0;
        EXPECT_EQ(space.valid(index), ok) << space.describe(index);
        if (!ok) {
          EXPECT_EQ(space.failed_constraint(index), (tile / 8) % merge != 0 ? 0 : 1);
        } else {
          EXPECT_EQ(space.failed_constraint(index), -1);
        }
        expected += ok;
        ++index;
      }
    }
  }
  EXPECT_EQ(expected, 4u);  // TILE=16 with MERGE 1,2 and both PADs
  EXPECT_EQ(space.count_valid(), expected);
}

TEST(SearchSpace, ConstraintsReadProblemValuesCopiedAtConstruction) {
  Scope problem;
  problem.set("limit", 32);
  SearchSpace space(dims(), {"TILE <= limit"}, problem);
  problem.set("limit", 1000);  // the space keeps its own copy
  EXPECT_EQ(space.count_valid(), 16u);
}

TEST(SearchSpace, SymbolDimensionsAreInvisibleToConstraints) {
  Scope problem;
  std::vector<Dimension> d = {{"TILE", {int64_t{16}, int64_t{32}}, false},
                              {"block_order", {sym("row"), sym("diagonal")}, true}};
  EXPECT_THROW(SearchSpace(d, {"block_order == 0"}, problem), ExpressionError);
  SearchSpace space(d, {"TILE > 16"}, problem);
  EXPECT_EQ(space.count_valid(), 2u);
  EXPECT_EQ(space.describe(3), "TILE=32 block_order=diagonal");
  EXPECT_EQ(space.json(3), R"({"TILE":32,"block_order":"diagonal"})");
}

TEST(SearchSpace, BadConstraintThrowsExpressionError) {
  Scope problem;
  try {
    SearchSpace space(dims(), {"TILE > 1", "TILEX % 2 == 0"}, problem);
    FAIL() << "no error";
  } catch (const ExpressionError& e) {
    EXPECT_EQ(e.message, "undefined name 'TILEX'");
    EXPECT_EQ(e.offset, 0);
  }
}

TEST(SearchSpace, BadConstraintSaysWhichOne) {
  Scope problem;
  try {
    SearchSpace space(dims(), {"TILE > 1", "PAD +"}, problem);
    FAIL() << "no error";
  } catch (const ConstraintError& e) {
    EXPECT_EQ(e.constraint, 1u);
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(SearchSpace, Neighbours) {
  Scope problem;
  SearchSpace space(dims(), {"!(TILE == 32 && MERGE == 8)"}, problem);
  // TILE=32 PAD=0 MERGE=4 is index 8 + 0 + 2 = 10.
  std::vector<uint64_t> n = space.neighbours(10);
  std::sort(n.begin(), n.end());
  // TILE 16/64 (2, 18), PAD 1 (14), MERGE 2 (9); MERGE 8 (11) fails the constraint.
  EXPECT_EQ(n, (std::vector<uint64_t>{2, 9, 14, 18}));
  n = space.neighbours(0);
  std::sort(n.begin(), n.end());
  EXPECT_EQ(n, (std::vector<uint64_t>{1, 4, 8}));
}

TEST(SearchSpace, DescribeAndJson) {
  Scope problem;
  std::vector<Dimension> d = dims();
  d.push_back({"SCALE", {0.5, 2.0}, false});
  SearchSpace space(d, {"SCALE * TILE >= 16"}, problem);
  EXPECT_EQ(space.describe(space.encode({1, 1, 0, 0})), "TILE=32 PAD=1 MERGE=1 SCALE=0.5");
  EXPECT_EQ(space.json(space.encode({1, 1, 0, 0})), R"({"TILE":32,"PAD":1,"MERGE":1,"SCALE":0.5})");
  EXPECT_FALSE(space.valid(space.encode({0, 0, 0, 0})));  // 0.5 * 16 < 16
  EXPECT_EQ(space.dimension_index("MERGE"), 2);
  EXPECT_EQ(space.dimension_index("NOPE"), -1);
}

TEST(SearchSpace, MoveKeepsConstraintsWorking) {
  Scope problem;
  SearchSpace space(dims(), {"PAD == 1"}, problem);
  SearchSpace moved(std::move(space));
  EXPECT_EQ(moved.count_valid(), 12u);
  EXPECT_TRUE(moved.valid(4));
  EXPECT_FALSE(moved.valid(0));
}

TEST(SearchSpace, EmptyProductIsOne) {
  Scope problem;
  SearchSpace space({}, {}, problem);
  EXPECT_EQ(space.size(), 1u);
  EXPECT_EQ(space.describe(0), "");
  EXPECT_EQ(space.json(0), "{}");
}

}  // namespace
}  // namespace gputune

namespace gputune {
namespace {

std::vector<Value> numbers(std::initializer_list<int64_t> values) {
  std::vector<Value> out;
  for (int64_t v : values) out.emplace_back(v);
  return out;
}

TEST(SearchSpaceNearestValid, AValidConfigIsItsOwnNearest) {
  Scope problem;
  SearchSpace space({{"A", numbers({1, 2, 4})}, {"B", numbers({1, 2, 4})}}, {"A * B <= 8"},
                    problem);
  const uint64_t index = space.encode({1, 1});
  EXPECT_EQ(space.nearest_valid(index), index);
}

TEST(SearchSpaceNearestValid, FewestDimensionsChangedThenLeastStepsThenLowestIndex) {
  Scope problem;
  SearchSpace space(
      {{"A", numbers({1, 2, 4, 8})}, {"B", numbers({1, 2, 4, 8})}, {"C", numbers({1, 2, 3})}},
      {"A % C == 0", "A * B >= 16"}, problem);
  // A=1 B=1 C=3: no A is a multiple of 3, so C changes; A * B >= 16 then needs A and B both.
  const uint64_t from = space.encode({0, 0, 2});
  ASSERT_FALSE(space.valid(from));
  const uint64_t nearest = space.nearest_valid(from);
  ASSERT_LT(nearest, space.size());
  EXPECT_TRUE(space.valid(nearest));
  const std::vector<size_t> digits = space.decode(nearest);
  size_t changed = 0, steps = 0;
  const std::vector<size_t> origin = {0, 0, 2};
  for (size_t d = 0; d < digits.size(); ++d) {
    changed += digits[d] != origin[d];
    steps += digits[d] > origin[d] ? digits[d] - origin[d] : origin[d] - digits[d];
  }
  EXPECT_EQ(changed, 3u) << space.describe(nearest);
  // Brute force: no valid config changes fewer dimensions, or as many with fewer steps.
  for (uint64_t i = 0; i < space.size(); ++i) {
    if (!space.valid(i)) continue;
    const std::vector<size_t> other = space.decode(i);
    size_t c = 0, s = 0;
    for (size_t d = 0; d < other.size(); ++d) {
      c += other[d] != origin[d];
      s += other[d] > origin[d] ? other[d] - origin[d] : origin[d] - other[d];
    }
    EXPECT_TRUE(c > changed || (c == changed && (s > steps || (s == steps && i >= nearest))))
        << space.describe(i) << " is nearer than " << space.describe(nearest);
  }
}

TEST(SearchSpaceNearestValid, NoneWithinTheBudgetIsSize) {
  Scope problem;
  SearchSpace space({{"A", numbers({1, 2})}, {"B", numbers({1, 2})}}, {"A + B > 10"}, problem);
  EXPECT_EQ(space.nearest_valid(0), space.size());
}

// A product of 10^12 configs is never walked to show a count: the counts are estimated from a
// sample, and say so (select, list and every search's report walked 7.4x10^8 configs for
// minutes).
TEST(SearchSpace, CountsOfAHugeProductAreEstimatedQuickly) {
  std::vector<Dimension> huge;
  for (const char* name : {"A", "B", "C", "D"}) {
    Dimension d{name, {}, false};
    for (int64_t v = 1; v <= 1000; ++v) d.values.push_back(v);
    huge.push_back(std::move(d));
  }
  Scope problem;
  SearchSpace space(std::move(huge), {"A % 2 == 0"}, problem);
  space.add_limit(
      {"break a limit", [](const std::vector<size_t>& digits) { return digits[1] >= 250; }});
  const auto start = std::chrono::steady_clock::now();
  const ConfigCount valid = space.count_valid_bounded();
  const std::vector<ConfigCount> pruned = space.count_pruned_bounded();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(valid.estimated);
  // Half the configs keep the constraint, three quarters of those the limit.
  EXPECT_NEAR(static_cast<double>(valid.configs) / 1e12, 0.375, 0.02);
  ASSERT_EQ(pruned.size(), 1u);
  EXPECT_TRUE(pruned[0].estimated);
  EXPECT_NEAR(static_cast<double>(pruned[0].configs) / 1e12, 0.125, 0.02);
  // The same space gives the same estimate.
  EXPECT_EQ(space.count_valid_bounded().configs, valid.configs);
}

TEST(SearchSpace, CountsOfASmallProductAreExact) {
  Scope problem;
  problem.set("n", 48);
  SearchSpace space(dims(), {"n % TILE == 0"}, problem);
  const ConfigCount valid = space.count_valid_bounded();
  EXPECT_FALSE(valid.estimated);
  EXPECT_EQ(valid.configs, space.count_valid());
}

}  // namespace
}  // namespace gputune
