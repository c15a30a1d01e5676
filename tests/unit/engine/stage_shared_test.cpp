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
        Refusal{"in_a_loop",
                "__global__ void k(float* y, const float* A, int n) {\n"
                "  float s = 0;\n"
                "  for (int j = 0; j < n; ++j) s += A[threadIdx.x * n + j];\n"
                "  y[threadIdx.x] = s;\n"
                "}\n",
                "k.cu:3:36: stage_shared: it is in a loop: staging a loop's accesses (a tile "
                "per strip of iterations) is not implemented (`A[threadIdx.x * n + j]`)"},
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
