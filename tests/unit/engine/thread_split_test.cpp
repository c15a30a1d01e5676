// thread_split_x: the golden rewrites of the bench's matrix-vector product and of a reduction
// with `-=`, each compiled by NVRTC for sm_90, and the refusals with their places.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/engine.h"
#include "support/engine_golden.h"
#include "test_paths.h"

namespace gputune::engine {
namespace {

SourceKnobs split(int lanes) {
  SourceKnobs knobs;
  knobs.thread_split_x = lanes;
  return knobs;
}

KernelUnit bench_matvec() {
  KernelUnit unit;
  unit.file_name = "matvec.cu";
  unit.text = test::read_text(std::filesystem::path(test::source_dir()) / "bench/engine/matvec.cu");
  return unit;
}

TEST(ThreadSplit, SplitsTheBenchMatrixVectorProductAcrossAWarp) {
  test::expect_engine_rewrite(bench_matvec(), split(32), "matvec.split_x32.cu", {"matvec"});
}

TEST(ThreadSplit, SplitsTheBenchMatrixVectorProductAcrossFourLanes) {
  test::expect_engine_rewrite(bench_matvec(), split(4), "matvec.split_x4.cu", {"matvec"});
}

TEST(ThreadSplit, ComposesWithUnroll) {
  SourceKnobs knobs = split(8);
  knobs.unroll = {{"", 4}};
  test::expect_engine_rewrite(bench_matvec(), knobs, "matvec.split_x8.unroll_4.cu", {"matvec"});
}

TEST(ThreadSplit, SplitsASubtractingReductionWithAStrideAndAnOffsetStart) {
  test::expect_engine_rewrite(test::engine_unit("residual.cu", R"(// r = b - A x over a band.
__global__ void residual(float* r, const float* A, const float* b, const float* x, int m,
                         int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  double sum = b[row];
  for (int j = 1; j <= n; j += 2)
    sum -= (double)A[row * n + j] * x[j];
  for (int j = 0; j < n; j += 2) sum = sum - A[row * n + j] * x[j];
  if (sum < 0.0)
    r[row] = (float)-sum;
  else
    r[row] = (float)sum;
}
)"),
                              split(4), "residual.split_x4.cu", {"residual"});
}

// bench/engine/matvec.yaml's split variants: every split with every unroll it lists.
TEST(ThreadSplit, EverySplitOfTheBenchMatrixVectorProductCompiles) {
  for (int lanes : {4, 8, 16, 32}) {
    for (int unroll : {0, 4, 8, 16}) {
      SourceKnobs knobs = split(lanes);
      knobs.unroll = {{"", unroll}};
      const Rewrite rewrite = source_engine().rewrite(bench_matvec(), knobs);
      ASSERT_TRUE(rewrite.ok) << rewrite.message;
      EXPECT_EQ(test::nvrtc_errors(bench_matvec(), rewrite.source, {"matvec"}), "")
          << "split " << lanes << ", unroll " << unroll << ":\n"
          << rewrite.source;
    }
  }
}

// The refusal of thread_split_x=4, and the verdict that must say the same.
std::string refusal_of(const std::string& text) {
  const KernelUnit unit = test::engine_unit("kernel.cu", text);
  const Rewrite rewrite = source_engine().rewrite(unit, split(4));
  EXPECT_FALSE(rewrite.ok) << rewrite.source;
  const Analysis analysis = source_engine().analyse(unit, {"thread_split_x"});
  const KnobVerdict* verdict = analysis.find("thread_split_x");
  EXPECT_TRUE(verdict && !verdict->applies && verdict->reason == rewrite.message)
      << (verdict ? verdict->reason : "no verdict");
  return rewrite.message;
}

TEST(ThreadSplit, TheVerdictNamesTheSplitLoopAndTheStore) {
  const Analysis analysis = source_engine().analyse(bench_matvec(), {"thread_split_x"});
  const KnobVerdict* verdict = analysis.find("thread_split_x");
  ASSERT_TRUE(verdict);
  EXPECT_TRUE(verdict->applies) << verdict->reason;
  EXPECT_EQ(verdict->reason,
            "S threads along x do the work of one; loops split across them: 1, statements that "
            "write memory kept to lane 0: 1");
  ASSERT_EQ(verdict->places.size(), 2u);
  EXPECT_EQ(verdict->places[0].line, 9);
  EXPECT_EQ(verdict->places[1].line, 6);
}

TEST(ThreadSplit, RefusesABarrier) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, const float* a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += a[row * n + j];
  __syncthreads();
  y[row] = s;
}
)"),
            "kernel.cu:5:3: thread_split_x: __syncthreads(): the lanes of a logical thread run "
            "its split loops' iterations apart, and the engine does not split kernels with "
            "barriers (`__syncthreads()`)");
}

TEST(ThreadSplit, RefusesAnAccumulatorReadByAnotherInTheLoop) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, const float* a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f, t = 0.0f;
  for (int j = 0; j < n; ++j) {
    s += a[row * n + j];
    t += s;
  }
  y[row] = t;
}
)"),
            "kernel.cu:6:10: thread_split_x: 's' is read in the loop other than by its own "
            "accumulation: each lane holds only a part of it until the loop ends (`s`)");
}

TEST(ThreadSplit, RefusesALoopThatIsNotCounted) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, const float* a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  int j = 0;
  while (j < n) {
    s += a[row * n + j];
    ++j;
  }
  y[row] = s;
}
)"),
            "kernel.cu:5:3: thread_split_x: the loop assigns 'j', 's', declared before it, and is "
            "not a counted for loop: the engine splits only `for (int j = start; j < bound; j += "
            "step)` (`while (j < n) { ...`)");
}

TEST(ThreadSplit, RefusesAStoreOfAValueTheLanesHoldApart) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, const float* a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f, last = 0.0f;
  for (int j = 0; j < n; ++j) {
    s += a[row * n + j];
    last = a[row * n + j];
  }
  y[row] = s + last;
}
)"),
            "kernel.cu:6:5: thread_split_x: 'last' is declared before the loop and assigned in it "
            "other than by `+=`, `-=` or `= last + ...`: the lanes would each keep their own "
            "(`last = a[row * n + j]`)");
}

TEST(ThreadSplit, RefusesAStoreInTheLoop) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, float* z, const float* a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) {
    s += a[row * n + j];
    z[row * n + j] = s;
  }
  y[row] = s;
}
)"),
            "kernel.cu:6:5: thread_split_x: writes memory in the loop that accumulates into 's': "
            "the engine splits only loops whose statements have no effect but the accumulation "
            "(`z[row * n + j] = s`)");
}

TEST(ThreadSplit, RefusesAnArrayReadAfterLaneZeroWroteIt) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, const float* a, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  y[row] = 1.0f;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += a[row * n + j] * y[row];
  y[row] = s;
}
)"),
            "kernel.cu:5:53: thread_split_x: 'y' is read here and written at line 3: lane 0 alone "
            "writes it, and another lane could read it after that write (`y[row]`)");
}

TEST(ThreadSplit, RefusesAKernelWithoutAReduction) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* y, const float* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = 2.0f * a[i];
}
)"),
            "kernel.cu:1:17: thread_split_x: kernel 'k' has no counted loop that accumulates into "
            "a local declared before it (`acc += ...`): nothing to split (`__global__ void "
            "k(float* y, const float* a) { ...`)");
}

TEST(ThreadSplit, RefusesThreadMergeOnTheSameKernel) {
  SourceKnobs knobs = split(4);
  knobs.thread_merge_x = 2;
  const Rewrite rewrite = source_engine().rewrite(bench_matvec(), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_NE(rewrite.message.find("thread_split_x: does not combine with thread_merge_x"),
            std::string::npos)
      << rewrite.message;
}

TEST(ThreadSplit, RefusesABlockItsLanesDoNotDivide) {
  SourceKnobs knobs = split(8);
  knobs.naive_blocks["matvec"] = {100, 1, 1};
  const Rewrite rewrite = source_engine().rewrite(bench_matvec(), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_NE(rewrite.message.find("the block's 100 threads along x are not a multiple of 8"),
            std::string::npos)
      << rewrite.message;
}

}  // namespace
}  // namespace gputune::engine
