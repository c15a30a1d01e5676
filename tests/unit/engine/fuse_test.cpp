// Loop fusion (docs/engine.md, "fuse"): the analysis of a launch sequence (parallel loops, the
// dependence distances, the halos, what lives in shared memory), the fused kernel's golden
// source, compiled by NVRTC for sm_90, and the refusals.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "support/engine_golden.h"
#include "support/text.h"

namespace gputune::engine {
namespace {

LaunchBinding launch(const std::string& kernel, std::vector<std::string> arguments,
                     std::array<uint32_t, 3> block = {32, 8, 1}) {
  return {kernel, std::move(arguments), block, {4, 16, 1}};
}

// A launch of a one-dimensional kernel: 256 threads a block, 16 blocks.
LaunchBinding launch_1d(const std::string& kernel, std::vector<std::string> arguments) {
  return {kernel, std::move(arguments), {256, 1, 1}, {16, 1, 1}};
}

KernelUnit chain(std::vector<LaunchBinding> launches, const std::string& text = "") {
  KernelUnit unit =
      text.empty() ? test::engine_fixture("fuse_chain.cu") : test::engine_unit("chain.cu", text);
  unit.launches = std::move(launches);
  unit.outputs = {"out"};
  return unit;
}

const std::vector<LaunchBinding> kThree = {launch("pass_a", {"in", "t1", "nx", "ny"}),
                                           launch("pass_b", {"t1", "t2", "nx", "ny"}),
                                           launch("pass_c", {"t2", "out", "nx", "ny"})};

SourceKnobs fuse(int launches) {
  SourceKnobs knobs;
  knobs.fuse = launches;
  return knobs;
}

TEST(Fuse, TwoLaunchesAtDistanceOneRecomputeAHaloOfOneRow) {
  const KernelUnit unit = chain({kThree[0], kThree[1]});
  const FusionFacts facts = source_engine().analyse(unit, {"fuse"}).fusion;
  EXPECT_EQ(facts.fusable, 2);
  ASSERT_NE(facts.plan(2), nullptr);
  EXPECT_EQ(facts.plan(2)->halos, (std::vector<std::array<int, 2>>{{0, 1}, {0, 0}}));
  ASSERT_EQ(facts.plan(2)->intermediates.size(), 1u);
  EXPECT_FALSE(facts.plan(2)->intermediates[0].global);  // t1 lives in shared memory only
  EXPECT_EQ(fused_shared_bytes(facts, 2, {32, 8, 1}), 32u * 10 * 4);
  test::expect_engine_rewrite(unit, fuse(2), "fuse_two.cu", {"pass_a_gputune_fused"});
}

TEST(Fuse, ThreeLaunchesSumTheDistancesAlongTheChain) {
  const KernelUnit unit = chain(kThree);
  const Analysis analysis = source_engine().analyse(unit, {"fuse"});
  const FusionFacts& facts = analysis.fusion;
  EXPECT_EQ(facts.fusable, 3);
  EXPECT_TRUE(analysis.find("fuse")->applies) << analysis.find("fuse")->reason;
  ASSERT_NE(facts.plan(3), nullptr);
  // pass_c reads t2 two words apart along x; pass_b reads t1 a row apart along y.
  EXPECT_EQ(facts.plan(3)->halos, (std::vector<std::array<int, 2>>{{2, 1}, {2, 0}, {0, 0}}));
  ASSERT_EQ(facts.plan(3)->intermediates.size(), 2u);
  EXPECT_NE(facts.plan(3)->intermediates[0].swap, facts.plan(3)->intermediates[1].swap);
  const std::string lines = [&] {
    std::string all;
    for (const std::string& line : facts.lines) all += line + "\n";
    return all;
  }();
  EXPECT_TRUE(testing::contains(lines,
                                "pass_c (launch 3) reads t2, which pass_b (launch 2) writes, "
                                "at distances x -2..2, y 0..0"))
      << lines;
  EXPECT_TRUE(testing::contains(lines, "t1 in shared memory (swap array 0) only")) << lines;
  test::expect_engine_rewrite(unit, fuse(3), "fuse_three.cu", {"pass_a_gputune_fused"});
}

TEST(Fuse, PartialFusionKeepsTheRestAndStoresWhatTheyRead) {
  // pass_c reads t1 too: fusing the first two keeps t1 in shared memory and stores it.
  const KernelUnit unit =
      chain({kThree[0], kThree[1], launch("pass_c", {"t1", "out", "nx", "ny"})});
  const FusionFacts facts = source_engine().analyse(unit, {"fuse"}).fusion;
  ASSERT_NE(facts.plan(2), nullptr);
  ASSERT_EQ(facts.plan(2)->intermediates.size(), 1u);
  EXPECT_TRUE(facts.plan(2)->intermediates[0].global);
  test::expect_engine_rewrite(unit, fuse(2), "fuse_partial.cu", {"pass_a_gputune_fused", "pass_c"});
}

TEST(Fuse, RefusesLaunchesOfDifferentBlocks) {
  const KernelUnit unit =
      chain({kThree[0], launch("pass_b", {"t1", "t2", "nx", "ny"}, {16, 16, 1})});
  const Analysis analysis = source_engine().analyse(unit, {"fuse"});
  EXPECT_FALSE(analysis.find("fuse")->applies);
  EXPECT_TRUE(
      testing::contains(analysis.find("fuse")->reason,
                        "pass_b (launch 2) has block 16 x 16 x 1, pass_a (launch 1) 32 x 8 x "
                        "1; fused launches need the same block"))
      << analysis.find("fuse")->reason;
  const Rewrite rewrite = source_engine().rewrite(unit, fuse(2));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_TRUE(testing::contains(rewrite.message,
                                "fuse_chain.cu:12:17: fuse: pass_b (launch 2) has "
                                "block 16 x 16 x 1"))
      << rewrite.message;
}

TEST(Fuse, RefusesAReadThatIsNotAffine) {
  const std::string text = R"(__global__ void a(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void b(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i * i) % n];
}
)";
  const KernelUnit unit =
      chain({launch_1d("a", {"in", "t1", "n"}), launch_1d("b", {"t1", "out", "n"})}, text);
  const Rewrite rewrite = source_engine().rewrite(unit, fuse(2));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_TRUE(testing::contains(rewrite.message,
                                "chain.cu:7:23: fuse: b (launch 2) reads t1, which a (launch 1) "
                                "writes, at `in[(i * i) % n]`: the index is not affine"))
      << rewrite.message;
}

TEST(Fuse, RefusesALaunchThatReadsWhatItsOwnThreadsWrite) {
  const std::string text = R"(__global__ void shift(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) data[i] = data[i + 1];
}
__global__ void twice(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
)";
  const KernelUnit unit =
      chain({launch_1d("shift", {"in", "n"}), launch_1d("twice", {"in", "out", "n"})}, text);
  const Analysis analysis = source_engine().analyse(unit, {"fuse"});
  EXPECT_FALSE(analysis.find("fuse")->applies);
  EXPECT_EQ(analysis.fusion.fusable, 0);
  EXPECT_TRUE(testing::contains(analysis.find("fuse")->reason,
                                "it reads in, which other threads of the same launch write: the "
                                "launch is not a parallel loop"))
      << analysis.find("fuse")->reason;
  const Rewrite rewrite = source_engine().rewrite(unit, fuse(2));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_TRUE(testing::contains(rewrite.message, "chain.cu:3:28: fuse: it reads in"))
      << rewrite.message;
}

TEST(Fuse, RefusesMoreLaunchesThanTheSequenceAndTheMerges) {
  const KernelUnit unit = chain({kThree[0], kThree[1]});
  Rewrite rewrite = source_engine().rewrite(unit, fuse(3));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_TRUE(testing::contains(rewrite.message, "fuse 3 asks for more launches than the 2"))
      << rewrite.message;
  SourceKnobs merged = fuse(2);
  merged.block_merge_x = 2;
  rewrite = source_engine().rewrite(unit, merged);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_TRUE(testing::contains(rewrite.message, "fuse: fusion does not combine with block_merge"))
      << rewrite.message;
  merged = fuse(2);
  merged.thread_merge_y = 3;
  rewrite = source_engine().rewrite(unit, merged);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_TRUE(testing::contains(rewrite.message,
                                "fuse: thread_merge_y = 3 does not divide the tile's y extent 8"))
      << rewrite.message;
}

// The tile stays the naive launch's 32 x 8 block; 32 x 2 threads loop over its cells, and the
// bodies' blockDim becomes the tile's extent. The third launch, left unfused, is thread-merged
// as usual.
TEST(Fuse, AThreadMergeGivesTheTileFewerThreadsAndMergesTheLaunchesLeftUnfused) {
  SourceKnobs knobs = fuse(2);
  knobs.thread_merge_y = 4;
  test::expect_engine_rewrite(chain(kThree), knobs, "fuse_two_merged.cu",
                              {"pass_a_gputune_fused", "pass_c"});
}

TEST(Fuse, SaysSoOnASingleLaunch) {
  const Analysis analysis = source_engine().analyse(chain({kThree[0]}), {"fuse"});
  EXPECT_FALSE(analysis.find("fuse")->applies);
  EXPECT_TRUE(analysis.fusion.lines.empty());
}

}  // namespace
}  // namespace gputune::engine
