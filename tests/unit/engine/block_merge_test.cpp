#include <gtest/gtest.h>

#include "merge_cases.h"

namespace gputune::engine {
namespace {

TEST(BlockMerge, RewritesEachKernelAsTheGoldenSays) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    for (const test::Variant& variant : test::block_merge_variants(kernel.two_d)) {
      SCOPED_TRACE(kernel.name + " " + variant.suffix);
      test::expect_rewrite_golden(kernel.name, variant);
    }
  }
}

TEST(BlockMerge, ComposesWithThreadMergeAsTheGoldenSays) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    for (const test::Variant& variant : test::combined_variants(kernel.two_d)) {
      SCOPED_TRACE(kernel.name + " " + variant.suffix);
      test::expect_rewrite_golden(kernel.name, variant);
    }
  }
}

SourceKnobs merge_x(int n) {
  SourceKnobs knobs;
  knobs.block_merge_x = n;
  return knobs;
}

// The refusal of block_merge_x=2, and the verdict that must say the same.
std::string refusal_of(const std::string& text) {
  const Rewrite rewrite = source_engine().rewrite(test::engine_unit("kernel.cu", text), merge_x(2));
  EXPECT_FALSE(rewrite.ok) << rewrite.source;
  const Analysis analysis =
      source_engine().analyse(test::engine_unit("kernel.cu", text), {"block_merge_x"});
  const KnobVerdict* verdict = analysis.find("block_merge_x");
  EXPECT_TRUE(verdict && !verdict->applies && verdict->reason == rewrite.message)
      << (verdict ? verdict->reason : "no verdict");
  return rewrite.message;
}

TEST(BlockMerge, RefusesABarrierUnderAConditionOnTheBlock) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a) {
  __shared__ float s[64];
  if (blockIdx.x > 0) {
    s[threadIdx.x] = a[blockIdx.x];
    __syncthreads();
  }
  a[threadIdx.x] = s[threadIdx.x];
}
)"),
            "kernel.cu:5:5: block_merge_x: __syncthreads() under a condition that depends on "
            "blockIdx.x (line 3): the sub-blocks of a merged block would not all reach it "
            "(`__syncthreads()`)");
}

TEST(BlockMerge, RefusesAReturnBeforeABarrier) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a, int n) {
  __shared__ float s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[threadIdx.x] = a[i];
  __syncthreads();
  a[i] = s[63 - threadIdx.x];
}
)"),
            "kernel.cu:4:15: block_merge_x: a return before __syncthreads() (line 6): every "
            "thread of a merged block must reach its barriers (`return`)");
}

TEST(BlockMerge, RefusesADynamicSharedArrayThatDependsOnTheBlock) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a) {
  extern __shared__ float s[];
  s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  a[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
)"),
            "kernel.cu:2:27: block_merge_x: shared array 's' depends on the block and its size is "
            "not known, so it cannot get a copy per merged block (`extern __shared__ float s[]`)");
}

TEST(BlockMerge, RefusesABlockIndexTheKernelDoesNotRead) {
  const Rewrite rewrite = source_engine().rewrite(test::engine_fixture("reduce.cu"), [] {
    SourceKnobs knobs;
    knobs.block_merge_y = 2;
    return knobs;
  }());
  EXPECT_FALSE(rewrite.ok);
  EXPECT_NE(rewrite.message.find("reduce.cu:2:17: block_merge_y: kernel 'reduce' does not read "
                                 "blockIdx.y: there is nothing to merge"),
            std::string::npos)
      << rewrite.message;
}

TEST(BlockMerge, VerdictNamesTheSharedArraysFilledOnce) {
  const Analysis analysis = source_engine().analyse(test::engine_fixture("matmul_tiled.cu"));
  const KnobVerdict* x = analysis.find("block_merge_x");
  ASSERT_NE(x, nullptr);
  EXPECT_TRUE(x->applies) << x->reason;
  EXPECT_EQ(x->reason,
            "one block does the work of N along x; shared arrays filled once for all N: As; "
            "shared arrays with one copy per merged block: Bs");
  ASSERT_EQ(x->places.size(), 1u);
  EXPECT_EQ(x->places[0].str(), "matmul_tiled.cu:3:20");
}

TEST(BlockMerge, GivesEachSubBlockItsOwnCopyOfAnArrayReadInThePhaseItIsWritten) {
  // Each thread reads back what it wrote, without a barrier: were the array shared, sub-block 0
  // alone would fill it and the others would read it too early.
  const Rewrite rewrite = source_engine().rewrite(
      test::engine_unit("kernel.cu", R"(__global__ void k(float* a, float c) {
  __shared__ float s[64];
  s[threadIdx.x] = c;
  a[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
  __syncthreads();
}
)"),
      merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_NE(rewrite.source.find("__shared__ float s[2][64];"), std::string::npos) << rewrite.source;
  EXPECT_NE(rewrite.source.find("if (gputune_active) s[gputune_sub_x][(threadIdx.x % "
                                "gputune_block_x)] = c;"),
            std::string::npos)
      << rewrite.source;
}

TEST(BlockMerge, ScalesTheKernelsBoundOnItsThreads) {
  const Rewrite rewrite = source_engine().rewrite(
      test::engine_unit("kernel.cu", R"(__global__ void __launch_bounds__(256, 2) k(float* a) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f;
}
)"),
      merge_x(4));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source.substr(0, rewrite.source.find('\n')),
            "__global__ void __launch_bounds__((256) * 4, 2) k(float* a, unsigned int "
            "gputune_grid_x) {");
}

TEST(BlockMerge, ScalesABoundWrittenWithTheSpecsMacro) {
  KernelUnit unit =
      test::engine_unit("kernel.cu", R"(__global__ void __launch_bounds__(THREADS) k(float* a) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f;
}
)");
  unit.defines = {{"THREADS", "128"}};
  const Rewrite rewrite = source_engine().rewrite(unit, merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source.substr(0, rewrite.source.find('\n')),
            "__global__ void __launch_bounds__((THREADS) * 2) k(float* a, unsigned int "
            "gputune_grid_x) {");
  EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"k"}), "");
}

// A bound written in a macro's body may be shared by other kernels: block merge cannot grow
// it, and refuses; thread merge, whose smaller block keeps it true, leaves it.
TEST(BlockMerge, RefusesToGrowABoundWrittenInAMacrosBody) {
  const std::string text = R"(#define BOUNDS __launch_bounds__(256)
__global__ void BOUNDS k(float* a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }
)";
  EXPECT_EQ(refusal_of(text),
            "kernel.cu:2:17: block_merge_x: the block grows beyond the kernel's "
            "__launch_bounds__, whose threads are not written in the kernel's own "
            "__launch_bounds__(...) (a macro's body) where the merge could scale them (`BOUNDS`)");
  SourceKnobs knobs;
  knobs.thread_merge_x = 2;
  const Rewrite thread = source_engine().rewrite(test::engine_unit("kernel.cu", text), knobs);
  ASSERT_TRUE(thread.ok) << thread.message;
  EXPECT_EQ(
      thread.source.rfind("#define BOUNDS __launch_bounds__(256)\n__global__ void BOUNDS k(", 0),
      0u)
      << thread.source;
}

TEST(BlockMerge, LeavesAfterTheLastBarrierOutsideTheNaiveGrid) {
  // The early return stays one that thread merge recognises on the merged kernel.
  const std::string text = R"(__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i >= n) return;
  out[i] = s[threadIdx.x] + s[(threadIdx.x + 1) % blockDim.x];
}
)";
  SourceKnobs knobs = merge_x(2);
  const Rewrite block = source_engine().rewrite(test::engine_unit("kernel.cu", text), knobs);
  ASSERT_TRUE(block.ok) << block.message;
  EXPECT_NE(block.source.find("  if (!gputune_active || (i >= n)) return;\n"), std::string::npos)
      << block.source;
  knobs.thread_merge_x = 2;
  const Rewrite both = source_engine().rewrite(test::engine_unit("kernel.cu", text), knobs);
  ASSERT_TRUE(both.ok) << both.message;
  EXPECT_EQ(test::nvrtc_errors(test::engine_unit("kernel.cu", text), both.source, {"k"}), "")
      << both.source;
}

}  // namespace
}  // namespace gputune::engine
