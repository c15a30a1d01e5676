// stage_shared in a loop, composed with the merges: each strip's tile is loaded once by the
// launched block (block-level code the merges copy as written), block merge scales the tile
// rather than copying it, a whole strip runs unrolled, and the loop's body runs without the
// naive threads' condition only where it touches nothing but locals and zero-filled tiles.
#include <gtest/gtest.h>

#include <string>

#include "engine/engine.h"
#include "support/engine_golden.h"
#include "support/text.h"

namespace gputune::engine {
namespace {

using testing::occurrences;

KernelUnit bench_kernel(const std::string& file) {
  KernelUnit unit = test::engine_fixture("../../../bench/engine/" + file);
  unit.file_name = file;
  return unit;
}

SourceKnobs staged(const std::string& kernel, std::array<uint32_t, 3> block, int strip) {
  SourceKnobs knobs;
  knobs.stage_shared = strip;
  knobs.naive_blocks[kernel] = block;
  return knobs;
}

// Thread merge 2 x 2 (consecutive) and block merge 2 along x: one load per tile over the
// launched 16 x 16 threads, B's tile the merged block's 64 columns, A's rows shared.
TEST(StageLoop, MergedMatmulLoadsEachTileOnceOverTheLaunchedBlock) {
  SourceKnobs knobs = staged("matmul", {32, 32, 1}, 16);
  knobs.thread_merge_x = 2;
  knobs.thread_merge_y = 2;
  knobs.merge_layout = MergeLayout::kConsecutive;
  knobs.block_merge_x = 2;
  test::expect_engine_rewrite(bench_kernel("matmul.cu"), knobs,
                              "matmul.stage_shared_16.merge_2x2_consecutive.block_merge_x_2.cu",
                              {"matmul"});
}

// The lead's configuration: 32 outputs per thread, still two loads (8 and 4 words a thread), no
// condition inside the strip, the whole strip unrolled.
TEST(StageLoop, ThreadMergeDoesNotCopyTheTileLoads) {
  SourceKnobs knobs = staged("matmul", {64, 128, 1}, 16);
  knobs.thread_merge_x = 4;
  knobs.thread_merge_y = 8;
  knobs.merge_layout = MergeLayout::kConsecutive;
  const KernelUnit unit = bench_kernel("matmul.cu");
  const Rewrite rewrite = source_engine().rewrite(unit, knobs);
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(occurrences(rewrite.source,
                        "const int gputune_block_thread = threadIdx.x + 16 * "
                        "threadIdx.y;"),
            2u)
      << rewrite.source;
  EXPECT_EQ(occurrences(rewrite.source, "gputune_r < 8;"), 1u);  // A: 128 x 16 over 256 threads
  EXPECT_EQ(occurrences(rewrite.source, "gputune_r < 4;"), 1u);  // B: 16 x 64
  EXPECT_EQ(occurrences(rewrite.source, "__shared__ float gputune_A_tile[128][16];"), 1u);
  EXPECT_EQ(occurrences(rewrite.source, "__shared__ float gputune_B_tile[16][64];"), 1u);
  EXPECT_EQ(occurrences(rewrite.source, "if (gputune_guard"), 32u)  // the stores after the loop
      << rewrite.source;
  EXPECT_EQ(occurrences(rewrite.source, "if ((gputune_s + 15) < (long long)k) {"), 1u);
  EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"matmul"}), "");
}

// Block merge along y scales A's tile (its rows); B's words do not depend on blockIdx.y.
TEST(StageLoop, BlockMergeScalesTheTileAlongItsThreads) {
  SourceKnobs knobs = staged("matmul", {16, 16, 1}, 32);
  knobs.block_merge_y = 4;
  knobs.pad_shared = {{"", 1}};
  const KernelUnit unit = bench_kernel("matmul.cu");
  const Rewrite rewrite = source_engine().rewrite(unit, knobs);
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(occurrences(rewrite.source, "__shared__ float gputune_A_tile[64][32 + 1];"), 1u)
      << rewrite.source;
  EXPECT_EQ(occurrences(rewrite.source, "__shared__ float gputune_B_tile[32][16 + 1];"), 1u);
  EXPECT_EQ(occurrences(rewrite.source, "const int gputune_block_thread"), 2u);
  EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"matmul"}), "");
}

// A tile whose words depend on the block id of the other dimension cannot serve the sub-blocks
// a block merge puts together along it.
TEST(StageLoop, RefusesABlockMergeAlongADimensionTheTileDependsOnOtherwise) {
  const KernelUnit unit = test::engine_unit(
      "k.cu",
      "__global__ void k(float* y, const float* A, int n) {\n"
      "  int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  float s = 0;\n"
      "  for (int j = 0; j < n; ++j) s += A[row * n + j + blockIdx.x] * threadIdx.x;\n"
      "  y[row * gridDim.x + blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
      "}\n");
  SourceKnobs knobs = staged("k", {8, 8, 1}, 8);
  ASSERT_TRUE(source_engine().rewrite(unit, knobs).ok);
  knobs.block_merge_x = 2;
  const Rewrite rewrite = source_engine().rewrite(unit, knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "k.cu:4:36: stage_shared: its words depend on blockIdx.x, along which block_merge "
            "puts 2 blocks together: each would need a tile of its own (`A[row * n + j + "
            "blockIdx.x]`)");
}

// Which loop bodies keep the naive threads' condition: each case's body, and whether the
// rewrite runs it under `if (gputune_guard)`.
struct Body {
  const char* name;
  const char* before;  // declarations before the `if`
  const char* body;
  bool guarded;
};

class StagedLoopBody : public ::testing::TestWithParam<Body> {};

TEST_P(StagedLoopBody, KeepsTheConditionOnlyWhereItActsOrReadsBeyondTheTiles) {
  const Body& c = GetParam();
  const KernelUnit unit = test::engine_unit(
      "k.cu", std::string("__global__ void k(float* y, const float* A, const float* x, float* z, "
                          "int m, int n) {\n"
                          "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n  ") +
                  c.before +
                  "\n"
                  "  if (row < m) {\n"
                  "    float dot = 0.0f;\n"
                  "    for (int j = 0; j < n; ++j) {\n      " +
                  c.body +
                  "\n    }\n"
                  "    y[row] = dot;\n"
                  "  }\n"
                  "}\n");
  const Rewrite rewrite = source_engine().rewrite(unit, staged("k", {64, 1, 1}, 8));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  // Both the whole strip's loop and the tail's.
  EXPECT_EQ(occurrences(rewrite.source, "if (gputune_guard) {\n"), c.guarded ? 2u : 0u)
      << rewrite.source;
  EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"k"}), "");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StagedLoopBody,
    ::testing::Values(
        Body{"locals_and_a_uniform_read", "", "dot += A[row * n + j] * x[j];", false},
        Body{"a_pure_call", "", "float a = A[row * n + j]; dot += fabsf(a);", false},
        Body{"a_global_store", "", "dot += A[row * n + j]; z[row] = dot;", true},
        Body{"a_read_by_the_thread", "", "dot += A[row * n + j] * x[row];", true},
        Body{"an_outer_local", "float last = 0;", "dot += A[row * n + j]; last = dot;", true},
        Body{"an_atomic", "", "dot += A[row * n + j]; atomicAdd(z, 1.0f);", true},
        Body{"an_integer_division", "",
             "dot += A[row * n + j] * (float)(n / ((int)A[row * n + j] + 1));", true}),
    [](const ::testing::TestParamInfo<Body>& info) { return info.param.name; });

// Prefetch: strip 0 into registers before the strips, each strip's words from the registers
// into the tile, then the next strip's into the registers before the strip's iterations.
TEST(StageLoop, PrefetchLoadsTheNextStripIntoRegistersDuringThisOne) {
  SourceKnobs knobs = staged("matvec", {128, 1, 1}, 16);
  knobs.prefetch = 1;
  test::expect_engine_rewrite(bench_kernel("matvec.cu"), knobs,
                              "matvec.stage_shared_16.prefetch.cu", {"matvec"});
}

TEST(StageLoop, PrefetchWithMergesCompiles) {
  SourceKnobs knobs = staged("matmul", {64, 128, 1}, 16);
  knobs.thread_merge_x = 4;
  knobs.thread_merge_y = 8;
  knobs.block_merge_x = 2;
  knobs.prefetch = 1;
  knobs.pad_shared = {{"", 1}};
  const KernelUnit unit = bench_kernel("matmul.cu");
  const Rewrite rewrite = source_engine().rewrite(unit, knobs);
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(occurrences(rewrite.source, "float gputune_A_tile_next[4];"), 1u) << rewrite.source;
  EXPECT_EQ(occurrences(rewrite.source, "float gputune_B_tile_next[4];"), 1u);
  EXPECT_EQ(occurrences(rewrite.source, "const int " + std::string("gputune_block_thread")), 6u);
  EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"matmul"}), "");
}

TEST(StageLoop, PrefetchIsRefusedWithoutAStripLoop) {
  SourceKnobs knobs = staged("matvec", {128, 1, 1}, 0);
  knobs.prefetch = 1;
  Rewrite rewrite = source_engine().rewrite(bench_kernel("matvec.cu"), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "matvec.cu: prefetch: there is no strip loop: stage_shared is 0, so no loop is "
            "strip-mined");
  const KernelUnit transpose =
      test::engine_unit("t.cu",
                        "__global__ void t(float* out, const float* in, int rows, int cols) {\n"
                        "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                        "  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];\n"
                        "}\n");
  knobs = staged("t", {32, 8, 1}, 1);
  ASSERT_TRUE(source_engine().rewrite(transpose, knobs).ok);
  knobs.prefetch = 1;
  rewrite = source_engine().rewrite(transpose, knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message.rfind(
                "t.cu:1:17: prefetch: there is no strip loop: stage_shared stages no loop of "
                "this kernel",
                0),
            0u)
      << rewrite.message;
  const Analysis analysis = source_engine().analyse(transpose, {"prefetch"});
  ASSERT_EQ(analysis.knobs.size(), 1u);
  EXPECT_FALSE(analysis.knobs[0].applies);
}

TEST(StageLoop, PrefetchIsRefusedWhereTheRegistersWouldExceedItsBound) {
  SourceKnobs knobs = staged("matvec", {256, 1, 1}, 40);
  knobs.thread_merge_x = 2;
  ASSERT_TRUE(source_engine().rewrite(bench_kernel("matvec.cu"), knobs).ok);
  knobs.prefetch = 1;
  const Rewrite rewrite = source_engine().rewrite(bench_kernel("matvec.cu"), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "matvec.cu:6:5: prefetch: the next strip's words would take 80 registers a thread, "
            "above the 64 prefetch allows (a narrower strip or more threads take fewer) (`for "
            "(int j = 0; j < n; ++j) { ...`)");
  const Analysis analysis = source_engine().analyse(bench_kernel("matvec.cu"), {"prefetch"});
  ASSERT_EQ(analysis.knobs.size(), 1u);
  EXPECT_TRUE(analysis.knobs[0].applies) << analysis.knobs[0].reason;
}

}  // namespace
}  // namespace gputune::engine
