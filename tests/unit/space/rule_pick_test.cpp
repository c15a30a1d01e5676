// The method's rules as a starting point: the config the rules pick from the engine's access
// analysis of the bench's naive kernels (bench/engine/*.yaml), within the spec's values.
#include "space/rule_pick.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

Spec bench_spec(const std::string& name) {
  return load_spec(test::source_dir() + "/bench/engine/" + name + ".yaml");
}

nlohmann::json pick_config(const Problem& problem, const RulePick& pick) {
  return nlohmann::json::parse(problem.space().json(pick.config_index));
}

const RuleChoice* choice(const RulePick& pick, const std::string& knob) {
  for (const RuleChoice& c : pick.choices) {
    if (c.knob == knob) return &c;
  }
  return nullptr;
}

TEST(RulePick, TheNaiveTransposeStagesItsColumnWritesThroughAPaddedTile) {
  const Problem problem(bench_spec("transpose"));
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  EXPECT_TRUE(problem.space().valid(pick->config_index));
  const nlohmann::json config = pick_config(problem, *pick);
  EXPECT_EQ(config["stage_shared"], 1);
  EXPECT_EQ(config["pad_shared"], 1);
  // Nothing is read alike by several threads or blocks: no merge.
  EXPECT_EQ(config["thread_merge_x"], 1);
  EXPECT_EQ(config["thread_merge_y"], 1);
  EXPECT_EQ(config["block_merge_x"], 1);
  ASSERT_EQ(pick->choices.size(), 2u);
  const RuleChoice* stage = choice(*pick, "stage_shared");
  ASSERT_NE(stage, nullptr);
  EXPECT_NE(stage->rule.find("transpose.cu:7:5 out[x * rows + y]"), std::string::npos)
      << stage->rule;
  EXPECT_NE(stage->rule.find("stage_shared stages it through a shared tile"), std::string::npos)
      << stage->rule;
  const RuleChoice* pad = choice(*pick, "pad_shared");
  ASSERT_NE(pad, nullptr);
  EXPECT_NE(pad->rule.find("gputune_out_tile is read down a column"), std::string::npos)
      << pad->rule;
}

TEST(RulePick, TheOneRowPerThreadProductStagesStripsUnrollsAndMergesThreadsThatShareX) {
  const Problem problem(bench_spec("matvec"));
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  const nlohmann::json config = pick_config(problem, *pick);
  EXPECT_EQ(config["stage_shared"], 32);  // a warp's width per strip
  EXPECT_EQ(config["pad_shared"], 1);     // A's tile is read down a column
  EXPECT_EQ(config["unroll"], 4);
  // x[j] is read alike by the threads along x; the space's largest merge is 2, nearest to 4.
  EXPECT_EQ(config["thread_merge_x"], 2);
  EXPECT_EQ(config["merge_layout"], "strided");
  const RuleChoice* merge = choice(*pick, "thread_merge_x");
  ASSERT_NE(merge, nullptr);
  EXPECT_NE(merge->rule.find("x[j] is read alike by the threads along x"), std::string::npos)
      << merge->rule;
}

TEST(RulePick, TheThreePassChainFusesWithATallerTileThanItsThreads) {
  const Problem problem(bench_spec("stencil_chain"));
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  EXPECT_TRUE(problem.space().valid(pick->config_index));
  const nlohmann::json config = pick_config(problem, *pick);
  EXPECT_EQ(config["fuse"], 3);
  EXPECT_EQ(config["thread_merge_y"], 4);
  const RuleChoice* fuse = choice(*pick, "fuse");
  ASSERT_NE(fuse, nullptr);
  EXPECT_NE(fuse->rule.find("launches 1 to 3 are parallel loops"), std::string::npos) << fuse->rule;
}

TEST(RulePick, AValueTheSpaceLacksBecomesTheNearestOfItsValues) {
  Spec spec = bench_spec("matvec");
  for (ParameterSpec& t : spec.transforms) {
    if (t.name == "stage_shared") {
      t.values = {Value(int64_t{0}), Value(int64_t{16}), Value(int64_t{64})};
    }
    if (t.name == "unroll") t.values = {Value(int64_t{0}), Value(int64_t{8}), Value(int64_t{16})};
  }
  const Problem problem(spec);
  const std::optional<RulePick> pick = rule_pick(problem);
  ASSERT_TRUE(pick);
  const nlohmann::json config = pick_config(problem, *pick);
  EXPECT_EQ(config["stage_shared"], 16);  // 16 from 32 is nearer than 64
  EXPECT_EQ(config["unroll"], 8);         // never 0, which leaves the loop as written
}

TEST(RulePick, ASpaceWithoutEngineKnobsOrWithoutARuleThatFiresHasNoPick) {
  // Every engine knob at its neutral value alone: nothing for a rule to set.
  Spec spec = bench_spec("transpose");
  for (ParameterSpec& t : spec.transforms) t.values.resize(1);
  EXPECT_FALSE(rule_pick(Problem(spec)));
  // The 5-point stencil reads coalesced words that no two threads read alike: nothing to do.
  EXPECT_FALSE(rule_pick(Problem(bench_spec("stencil"))));
}

}  // namespace
}  // namespace gputune
