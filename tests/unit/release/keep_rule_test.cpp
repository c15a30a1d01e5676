#include "release/keep_rule.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

MeasuredConfig candidate(uint64_t index, double median, double spread, bool baseline = false) {
  MeasuredConfig c;
  c.config_index = index;
  c.config_json = "{\"i\":" + std::to_string(index) + "}";
  c.median_ms = median;
  c.spread = spread;
  c.is_baseline = baseline;
  return c;
}

std::vector<uint64_t> kept_indices(const std::vector<KeptChoice>& kept) {
  std::vector<uint64_t> out;
  for (const KeptChoice& k : kept) out.push_back(k.candidate.config_index);
  return out;
}

TEST(KeepRule, TheBestAloneWhenNothingIsWithinItsNoise) {
  auto kept = keep_choices(
      {candidate(0, 2.0, 0.01, true), candidate(1, 1.0, 0.01), candidate(2, 1.5, 0.01)}, 5);
  ASSERT_EQ(kept_indices(kept), (std::vector<uint64_t>{1}));
  EXPECT_EQ(kept[0].rank, 0);
  EXPECT_DOUBLE_EQ(*kept[0].speedup_over_baseline, 2.0);
  EXPECT_DOUBLE_EQ(*kept[0].margin_to_runner_up, 0.5);  // the runner-up, 1.5, kept or not
}

TEST(KeepRule, KeepsThoseWithinTheNoiseFastestFirst) {
  // Noise: max(2 * 0.02, 2 * spread, 0.01) = 4% of the best for the quiet ones.
  auto kept =
      keep_choices({candidate(0, 3.0, 0.0, true), candidate(1, 1.00, 0.02),
                    candidate(2, 1.03, 0.02), candidate(3, 1.05, 0.02), candidate(4, 1.02, 0.0)},
                   5);
  EXPECT_EQ(kept_indices(kept), (std::vector<uint64_t>{1, 4, 2}));
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].rank, static_cast<int>(i));
  EXPECT_FALSE(kept[1].margin_to_runner_up);  // rank 0 only
}

TEST(KeepRule, ANoisySlowerConfigIsWithinTheNoiseWhereAQuietOneIsNot) {
  // 1.08 with a 5% spread is within 10%; 1.06 with none is outside 4%.
  auto kept =
      keep_choices({candidate(1, 1.0, 0.02), candidate(2, 1.06, 0.0), candidate(3, 1.08, 0.05)}, 5);
  EXPECT_EQ(kept_indices(kept), (std::vector<uint64_t>{1, 3}));
}

TEST(KeepRule, TheBaselineStaysTheChoiceWhereANoisyWinnerDoesNotBeatItByMoreThanTheNoise) {
  // The winner is 5% faster but its spread is 4%: within 8% noise, so the baseline is rank 0.
  auto kept = keep_choices({candidate(0, 1.05, 0.01, true), candidate(7, 1.0, 0.04)}, 5);
  ASSERT_EQ(kept_indices(kept), (std::vector<uint64_t>{0, 7}));
  EXPECT_TRUE(kept[0].candidate.is_baseline);
  EXPECT_DOUBLE_EQ(*kept[0].speedup_over_baseline, 1.0);
  EXPECT_NEAR(*kept[0].margin_to_runner_up, 1.0 / 1.05 - 1, 1e-12);  // negative: said plainly
}

TEST(KeepRule, AWinnerThatBeatsTheBaselineByMoreThanTheNoiseIsTheChoice) {
  auto kept = keep_choices({candidate(0, 1.2, 0.01, true), candidate(7, 1.0, 0.04)}, 5);
  ASSERT_EQ(kept_indices(kept), (std::vector<uint64_t>{7}));
  EXPECT_NEAR(*kept[0].speedup_over_baseline, 1.2, 1e-12);
}

TEST(KeepRule, AtMostTop) {
  std::vector<MeasuredConfig> all;
  for (uint64_t i = 0; i < 10; ++i) all.push_back(candidate(i, 1.0 + 0.001 * i, 0.0));
  EXPECT_EQ(kept_indices(keep_choices(all, 3)), (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(keep_choices(all, 1).size(), 1u);
}

TEST(KeepRule, TheBaselineAsRankZeroCountsTowardsTop) {
  auto kept = keep_choices({candidate(0, 1.005, 0.0, true), candidate(1, 1.0, 0.0),
                            candidate(2, 1.001, 0.0), candidate(3, 1.002, 0.0)},
                           2);
  EXPECT_EQ(kept_indices(kept), (std::vector<uint64_t>{0, 1}));
}

TEST(KeepRule, NoBaselineMeasuredLeavesTheSpeedUpUnknown) {
  auto kept = keep_choices({candidate(1, 1.0, 0.0), candidate(2, 2.0, 0.0)}, 5);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_FALSE(kept[0].speedup_over_baseline);
}

TEST(KeepRule, TheOrderOfTheInputDoesNotMatter) {
  std::vector<MeasuredConfig> a = {candidate(3, 1.0, 0.0), candidate(1, 1.0, 0.0),
                                   candidate(2, 1.0, 0.0)};
  std::vector<MeasuredConfig> b = {a[2], a[0], a[1]};
  EXPECT_EQ(kept_indices(keep_choices(a, 5)), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(kept_indices(keep_choices(b, 5)), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(KeepRule, NothingMeasuredKeepsNothing) { EXPECT_TRUE(keep_choices({}, 5).empty()); }

}  // namespace
}  // namespace gputune
