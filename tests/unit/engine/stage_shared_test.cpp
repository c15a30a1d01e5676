// stage_shared: uncoalesced accesses through a shared tile. Golden rewrites of the naive
// transposes (the write staged, the read staged), with padding and merges after it compiling
// for sm_90, and each refusal with its reason.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "support/engine_golden.h"

namespace gputune::engine {
namespace {

SourceKnobs staged(const std::string& kernel, std::array<uint32_t, 3> block) {
  SourceKnobs knobs;
  knobs.stage_shared = 1;
  knobs.naive_blocks[kernel] = block;
  return knobs;
}

KernelUnit bench_transpose() {
  KernelUnit unit = test::engine_fixture("../../../bench/engine/transpose.cu");
  unit.file_name = "transpose.cu";
  return unit;
}

// The method's own transpose: the read goes down a column.
const char* kReadTranspose =
    "// out = in^T, reading down a column of `in`.\n"
    "__global__ void transpose_read(float* out, const float* in, int rows, int cols) {\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x >= rows || y >= cols) return;\n"
    "  out[y * rows + x] = in[x * cols + y];\n"
    "}\n";

TEST(StageShared, TheNaiveTransposesWriteBecomesACoalescedStoreOfATile) {
  test::expect_engine_rewrite(bench_transpose(), staged("transpose", {32, 8, 1}),
                              "transpose.stage_shared.cu", {"transpose"});
}

TEST(StageShared, PadSharedPadsTheStagedTile) {
  SourceKnobs knobs = staged("transpose", {32, 32, 1});
  knobs.pad_shared = {{"", 1}};
  test::expect_engine_rewrite(bench_transpose(), knobs, "transpose.stage_shared.pad_1.cu",
                              {"transpose"});
}

TEST(StageShared, AnUncoalescedReadBecomesACoalescedLoadOfATile) {
  SourceKnobs knobs = staged("transpose_read", {16, 16, 1});
  // The early return guards the naive threads; staging refuses to put a barrier after it.
  const Rewrite refused =
      source_engine().rewrite(test::engine_unit("read.cu", kReadTranspose), knobs);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.message,
            "read.cu:6:23: stage_shared: a return before read.cu:5:3 would keep threads from the "
            "barrier staging needs (`in[x * cols + y]`)");
  std::string guarded = kReadTranspose;
  guarded.replace(guarded.find("if (x >= rows || y >= cols) return;\n  out"),
                  std::string("if (x >= rows || y >= cols) return;\n  out").size(),
                  "if (x < rows && y < cols)\n    out");
  test::expect_engine_rewrite(test::engine_unit("read.cu", guarded), knobs,
                              "transpose_read.stage_shared.cu", {"transpose_read"});
}

TEST(StageShared, ThreadAndBlockMergesOfTheStagedTransposeCompile) {
  const KernelUnit unit = bench_transpose();
  for (const auto& [tx, ty, bx] :
       std::vector<std::array<int, 3>>{{1, 2, 1}, {1, 4, 1}, {2, 1, 1}, {1, 1, 2}, {2, 2, 2}}) {
    SourceKnobs knobs = staged("transpose", {32u * tx, 8u * ty, 1});
    knobs.thread_merge_x = tx;
    knobs.thread_merge_y = ty;
    knobs.block_merge_x = bx;
    knobs.pad_shared = {{"", 1}};
    const Rewrite rewrite = source_engine().rewrite(unit, knobs);
    ASSERT_TRUE(rewrite.ok) << rewrite.message;
    EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"transpose"}), "") << rewrite.source;
  }
}

TEST(StageShared, TheVerdictNamesWhatItStagesAndWhatItLeaves) {
  const Analysis analysis = source_engine().analyse(bench_transpose(), {"stage_shared"});
  ASSERT_EQ(analysis.knobs.size(), 1u);
  EXPECT_TRUE(analysis.knobs[0].applies);
  EXPECT_EQ(analysis.knobs[0].reason,
            "stages out[x * rows + y] (transpose.cu:7:5) through a shared tile of the naive "
            "block's extent");
}

// A kernel stage_shared leaves as written, and why.
struct Refusal {
  std::string name, kernel, message;
};

class StageSharedRefuses : public testing::TestWithParam<Refusal> {};

TEST_P(StageSharedRefuses, WithTheReason) {
  const Rewrite rewrite = source_engine().rewrite(test::engine_unit("k.cu", GetParam().kernel),
                                                  staged("k", {32, 8, 1}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StageSharedRefuses,
    testing::Values(
        Refusal{"coalesced",
                "__global__ void k(float* a, const float* b) {\n"
                "  a[threadIdx.x] = b[blockIdx.x * blockDim.x + threadIdx.x];\n"
                "}\n",
                "k.cu: stage_shared: every global access is coalesced, uniform or not affine"},
        Refusal{"not_reused",
                "__global__ void k(float* a, const float* b) {\n"
                "  a[threadIdx.x] = b[threadIdx.x * 64];\n"
                "}\n",
                "k.cu:2:20: stage_shared: the data is not reused: no other thread of the block "
                "touches the rest of the words a warp touches once (threadIdx.y does not step "
                "the index by one word) (`b[threadIdx.x * 64]`)"},
        Refusal{"nested_loop",
                "__global__ void k(float* y, const float* A, int n) {\n"
                "  float s = 0;\n"
                "  for (int i = 0; i < 4; ++i)\n"
                "    for (int j = 0; j < n; ++j) s += A[threadIdx.x * n + j];\n"
                "  y[threadIdx.x] = s;\n"
                "}\n",
                "k.cu:4:38: stage_shared: it is in a nested loop: staging strip-mines a loop "
                "that no other loop holds (`A[threadIdx.x * n + j]`)"},
        Refusal{"return_before_the_loop",
                "__global__ void k(float* y, const float* A, int m, int n) {\n"
                "  if (threadIdx.x >= m) return;\n"
                "  float s = 0;\n"
                "  for (int j = 0; j < n; ++j) s += A[threadIdx.x * n + j];\n"
                "  y[threadIdx.x] = s;\n"
                "}\n",
                "k.cu:4:36: stage_shared: a return before k.cu:2:3 would keep threads from the "
                "barrier staging needs (`A[threadIdx.x * n + j]`)"},
        Refusal{"guard_on_loaded_data",
                "__global__ void k(float* y, const float* A, const int* live, int n) {\n"
                "  if (live[threadIdx.x] > 0) {\n"
                "    float s = 0;\n"
                "    for (int j = 0; j < n; ++j) s += A[threadIdx.x * n + j];\n"
                "    y[threadIdx.x] = s;\n"
                "  }\n"
                "}\n",
                "k.cu:4:38: stage_shared: a condition around it is not a comparison of affine "
                "forms of the ids and the kernel's parameters (`A[threadIdx.x * n + j]`)"},
        Refusal{"break_in_the_loop",
                "__global__ void k(float* y, const float* A, int n) {\n"
                "  float s = 0;\n"
                "  for (int j = 0; j < n; ++j) {\n"
                "    if (s > 1.0f) break;\n"
                "    s += A[threadIdx.x * n + j];\n"
                "  }\n"
                "  y[threadIdx.x] = s;\n"
                "}\n",
                "k.cu:5:10: stage_shared: its loop holds a return or a break: the strips' "
                "barriers need every iteration (`A[threadIdx.x * n + j]`)"},
        Refusal{"loop_bound_per_thread",
                "__global__ void k(float* y, const float* A, int n) {\n"
                "  float s = 0;\n"
                "  for (int j = 0; j < threadIdx.x; ++j) s += A[threadIdx.x * n + j];\n"
                "  y[threadIdx.x] = s;\n"
                "}\n",
                "k.cu:3:46: stage_shared: its loop's condition is not `j < bound` with a bound "
                "the same for the block's threads (`A[threadIdx.x * n + j]`)"},
        Refusal{"written",
                "__global__ void k(float* a, int n) {\n"
                "  a[threadIdx.y + n * threadIdx.x] = a[threadIdx.y + n * threadIdx.x + 1];\n"
                "}\n",
                "k.cu:2:3: stage_shared: a is read in the kernel at k.cu:2:38: a staged store "
                "would write it late (`a[threadIdx.y + n * threadIdx.x]`)"},
        Refusal{"guard_not_affine",
                "__global__ void k(float* a, const float* b, const int* mask, int n) {\n"
                "  if (mask[threadIdx.x]) a[threadIdx.x] = b[threadIdx.y + n * threadIdx.x];\n"
                "}\n",
                "k.cu:2:43: stage_shared: a condition around it is not a comparison of affine "
                "forms of the ids and the kernel's parameters (`b[threadIdx.y + n * "
                "threadIdx.x]`)"},
        Refusal{"passed_on",
                "__device__ void touch(const float* p) {}\n"
                "__global__ void k(float* a, const float* b, int n) {\n"
                "  touch(b);\n"
                "  a[threadIdx.x] = b[threadIdx.y + n * threadIdx.x];\n"
                "}\n",
                "k.cu:4:20: stage_shared: b is passed to a function at k.cu:3:3 (`b[threadIdx.y "
                "+ n * threadIdx.x]`)"},
        Refusal{"read_modify_write",
                "__global__ void k(float* a, int n) {\n"
                "  a[threadIdx.y + n * threadIdx.x] += 1.0f;\n"
                "}\n",
                "k.cu:2:3: stage_shared: it is read and written (`+=`, `++`): staging moves the "
                "write after a barrier (`a[threadIdx.y + n * threadIdx.x]`)"}),
    [](const testing::TestParamInfo<Refusal>& info) { return info.param.name; });

KernelUnit bench_kernel(const std::string& file) {
  KernelUnit unit = test::engine_fixture("../../../bench/engine/" + file);
  unit.file_name = file;
  return unit;
}

// The method's matrix-vector product: each thread's row read down the strip, a tile of the
// block's rows loaded along them.
TEST(StageShared, TheOneRowPerThreadMatvecLoadsATileOfRowsPerStrip) {
  SourceKnobs knobs = staged("matvec", {128, 1, 1});
  knobs.stage_shared = 32;
  knobs.pad_shared = {{"", 1}};
  test::expect_engine_rewrite(bench_kernel("matvec.cu"), knobs, "matvec.stage_shared_32.pad_1.cu",
                              {"matvec"});
}

// The naive matrix multiply becomes the shared-memory tiled one: A's rows and B's columns of
// the block, a strip of k at a time.
TEST(StageShared, TheNaiveMatmulBecomesTheTiledOne) {
  SourceKnobs knobs = staged("matmul", {16, 16, 1});
  knobs.stage_shared = 16;
  test::expect_engine_rewrite(bench_kernel("matmul.cu"), knobs, "matmul.stage_shared_16.cu",
                              {"matmul"});
}

TEST(StageShared, ThreadAndBlockMergesOfTheStagedLoopsCompile) {
  for (const auto& [tx, ty, bx, layout] : std::vector<std::array<int, 4>>{
           {1, 2, 1, 0}, {2, 2, 1, 0}, {4, 8, 1, 0}, {4, 4, 1, 1}, {1, 1, 2, 0}, {2, 4, 2, 0}}) {
    SourceKnobs knobs = staged("matmul", {16u * tx, 16u * ty, 1});
    knobs.stage_shared = 16;
    knobs.thread_merge_x = tx;
    knobs.thread_merge_y = ty;
    knobs.block_merge_x = bx;
    knobs.merge_layout = layout ? MergeLayout::kConsecutive : MergeLayout::kStrided;
    knobs.pad_shared = {{"", 1}};
    knobs.unroll = {{"", 4}};
    const KernelUnit unit = bench_kernel("matmul.cu");
    const Rewrite rewrite = source_engine().rewrite(unit, knobs);
    ASSERT_TRUE(rewrite.ok) << rewrite.message;
    EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"matmul"}), "") << rewrite.source;
  }
  for (const int tx : {1, 2}) {
    SourceKnobs knobs = staged("matvec", {128u * tx, 1, 1});
    knobs.stage_shared = 32;
    knobs.thread_merge_x = tx;
    knobs.unroll = {{"", 8}};
    const KernelUnit unit = bench_kernel("matvec.cu");
    const Rewrite rewrite = source_engine().rewrite(unit, knobs);
    ASSERT_TRUE(rewrite.ok) << rewrite.message;
    EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"matvec"}), "") << rewrite.source;
  }
}

TEST(StageShared, ALoopAtTheTopLevelWithAnOffsetStartIsStripMined) {
  const char* kernel =
      "__global__ void k(float* y, const float* A, int lo, int hi) {\n"
      "  float s = 0;\n"
      "  for (int j = lo; j < hi; ++j) s += A[(blockIdx.x * blockDim.x + threadIdx.x) * hi + j];\n"
      "  y[blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
      "}\n";
  SourceKnobs knobs = staged("k", {64, 1, 1});
  knobs.stage_shared = 8;
  test::expect_engine_rewrite(test::engine_unit("offset.cu", kernel), knobs,
                              "offset_loop.stage_shared_8.cu", {"k"});
}

// A bound the loop reaches (`<=`), a start other than 0 and a statement before the loop under
// its condition: the statement keeps the condition, the strips run for every thread.
TEST(StageShared, AGuardedBandKeepsItsConditionForTheStatementsAroundTheLoop) {
  SourceKnobs knobs = staged("band_matvec", {64, 1, 1});
  knobs.stage_shared = 8;
  test::expect_engine_rewrite(test::engine_fixture("band_matvec_int.cu"), knobs,
                              "band_matvec.stage_shared_8.cu", {"band_matvec"});
}

TEST(StageShared, TheVerdictNamesTheStagedLoops) {
  const Analysis analysis = source_engine().analyse(bench_kernel("matmul.cu"), {"stage_shared"});
  ASSERT_EQ(analysis.knobs.size(), 1u);
  EXPECT_TRUE(analysis.knobs[0].applies);
  EXPECT_EQ(analysis.knobs[0].reason,
            "stages A[row * k + i] (matmul.cu:9:14, a tile per strip of its loop), B[i * n + "
            "col] (matmul.cu:9:31, a tile per strip of its loop) through a shared tile of the "
            "naive block's extent");
  ASSERT_EQ(analysis.staged_tiles.size(), 2u);
  EXPECT_EQ(analysis.staged_tiles[0].rows, StagedTile::Extent::kBlockY);
  EXPECT_EQ(analysis.staged_tiles[0].columns, StagedTile::Extent::kStrip);
  EXPECT_EQ(analysis.staged_tiles[1].rows, StagedTile::Extent::kStrip);
  EXPECT_EQ(analysis.staged_tiles[1].columns, StagedTile::Extent::kBlockX);
  SourceKnobs knobs = staged("matmul", {64, 128, 1});
  knobs.stage_shared = 32;
  knobs.pad_shared = {{"", 1}};
  knobs.block_merge_x = 2;
  // A: 128 x 33; B: 32 x (2 * 64 + 1), scaled by the block merge along x.
  EXPECT_EQ(staged_shared_bytes(analysis.staged_tiles, knobs), 4u * (128 * 33 + 32 * 129));
}

TEST(StageShared, RefusesAKernelLaunchedWithSeveralBlockShapes) {
  SourceKnobs knobs = staged("transpose", {0, 0, 0});
  const Rewrite rewrite = source_engine().rewrite(bench_transpose(), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "transpose.cu:3:17: stage_shared: transpose is launched with several block shapes: "
            "its tile's extent is not one (`__global__ void transpose(float* out, const float* "
            "in, int rows, int cols) { ...`)");
}

}  // namespace
}  // namespace gputune::engine
