#include <gtest/gtest.h>

#include "merge_cases.h"

namespace gputune::engine {
namespace {

TEST(ThreadMerge, RewritesEachKernelAsTheGoldenSays) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    for (const test::Variant& variant : test::thread_merge_variants(kernel.two_d)) {
      SCOPED_TRACE(kernel.name + " " + variant.suffix);
      test::expect_rewrite_golden(kernel.name, variant);
    }
  }
}

SourceKnobs merge_x(int n) {
  SourceKnobs knobs;
  knobs.thread_merge_x = n;
  return knobs;
}

// The refusal of thread_merge_x=2, and the verdict that must say the same.
std::string refusal_of(const std::string& text) {
  const Rewrite rewrite = source_engine().rewrite(test::engine_unit("kernel.cu", text), merge_x(2));
  EXPECT_FALSE(rewrite.ok) << rewrite.source;
  const Analysis analysis =
      source_engine().analyse(test::engine_unit("kernel.cu", text), {"thread_merge_x"});
  const KnobVerdict* verdict = analysis.find("thread_merge_x");
  EXPECT_TRUE(verdict && !verdict->applies && verdict->reason == rewrite.message)
      << (verdict ? verdict->reason : "no verdict");
  return rewrite.message;
}

TEST(ThreadMerge, RefusesABarrierUnderADependentCondition) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a) {
  __shared__ float s[64];
  int t = threadIdx.x;
  if (t < 32) {
    s[t] = a[t];
    __syncthreads();
  }
  a[t] = s[t];
}
)"),
            "kernel.cu:6:5: thread_merge_x: __syncthreads() under a condition that depends on "
            "threadIdx.x (line 4): not every thread of the block would reach it "
            "(`__syncthreads()`)");
}

TEST(ThreadMerge, RefusesABarrierInALoopLeftByADependentBreak) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a, int n) {
  int t = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    if (a[t * n + i] < 0.0f) break;
    __syncthreads();
  }
}
)"),
            "kernel.cu:5:5: thread_merge_x: __syncthreads() in a loop whose iterations depend on "
            "threadIdx.x (line 3): not every thread of the block would reach it "
            "(`__syncthreads()`)");
}

TEST(ThreadMerge, ReplicatesALoopLeftByADependentBreak) {
  const Rewrite rewrite =
      source_engine().rewrite(test::engine_unit("kernel.cu", R"(__global__ void k(float* a, int n) {
  int t = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    if (a[t * n + i] < 0.0f) break;
    a[t * n + i] = 0.0f;
  }
}
)"),
                              merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source, R"(__global__ void k(float* a, int n) {
  int t_gputune0 = threadIdx.x;
  int t_gputune1 = (threadIdx.x + blockDim.x);
  for (int i_gputune0 = 0; i_gputune0 < n; ++i_gputune0) {
    if (a[t_gputune0 * n + i_gputune0] < 0.0f) break;
    a[t_gputune0 * n + i_gputune0] = 0.0f;
  }
  for (int i_gputune1 = 0; i_gputune1 < n; ++i_gputune1) {
    if (a[t_gputune1 * n + i_gputune1] < 0.0f) break;
    a[t_gputune1 * n + i_gputune1] = 0.0f;
  }
}
)");
}

TEST(ThreadMerge, RefusesAWarpShuffle) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a) {
  float v = a[threadIdx.x];
  v += __shfl_down_sync(0xffffffffu, v, 16);
  a[threadIdx.x] = v;
}
)"),
            "kernel.cu:3:8: thread_merge_x: warp-level function '__shfl_down_sync': merging "
            "changes which threads share a warp (`__shfl_down_sync(0xffffffffu, v, 16)`)");
}

TEST(ThreadMerge, RefusesAHelperThatReadsTheIndexItself) {
  EXPECT_EQ(refusal_of(R"(__device__ int lane() { return threadIdx.x % 32; }
__global__ void k(int* a) { a[blockIdx.x * blockDim.x + threadIdx.x] = lane(); }
)"),
            "kernel.cu:1:16: thread_merge_x: helper 'lane' reads threadIdx.x itself; pass it as "
            "an argument so the engine can rewrite it (`__device__ int lane() { return "
            "threadIdx.x % 32; }`)");
}

TEST(ThreadMerge, RefusesAVariableHiddenInAMacro) {
  EXPECT_EQ(refusal_of(R"(#define AT(r) data[(r) * width + col]
__global__ void k(float* data, int width) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  AT(0) = 1.0f;
}
)"),
            "kernel.cu:4:3: thread_merge_x: the code to rewrite lies inside the body of macro "
            "'AT'; expand the macro in the kernel, or pass the value as its argument");
}

TEST(ThreadMerge, RewritesAVariablePassedToAMacro) {
  const Rewrite rewrite = source_engine().rewrite(
      test::engine_unit("kernel.cu", R"(#define AT(r, c) data[(r) * width + (c)]
__global__ void k(float* data, int width) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  AT(0, col) = 1.0f;
}
)"),
      merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_NE(rewrite.source.find("  AT(0, col_gputune0) = 1.0f;\n  AT(0, col_gputune1) = 1.0f;"),
            std::string::npos)
      << rewrite.source;
}

TEST(ThreadMerge, RefusesTheIndexUsedWhole) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a) {
  uint3 t = threadIdx;
  a[t.x] = 0.0f;
}
)"),
            "kernel.cu:2:13: thread_merge_x: `threadIdx` is used whole; the engine rewrites only "
            "its components (.x, .y, .z) (`threadIdx`)");
}

TEST(ThreadMerge, RefusesADependentReturnInsideALoop) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a, int n) {
  int t = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    if (a[t] > i) return;
    a[t] += 1.0f;
  }
}
)"),
            "kernel.cu:3:3: thread_merge_x: a return inside a statement that depends on "
            "threadIdx.x (`for (int i = 0; i < n; ++i) { ...`)");
}

TEST(ThreadMerge, RefusesAnIndexTheKernelDoesNotRead) {
  SourceKnobs knobs;
  knobs.thread_merge_y = 2;
  const Rewrite rewrite = source_engine().rewrite(test::engine_fixture("vector_add.cu"), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "vector_add.cu:1:17: thread_merge_y: kernel 'vector_add' does not read threadIdx.y: "
            "there is nothing to merge (`__global__ void vector_add(const float* a, const float* "
            "b, float* c, int n) { ...`)");
}

TEST(ThreadMerge, VerdictNamesTheLoadsTheCopiesShare) {
  const Analysis analysis = source_engine().analyse(test::engine_fixture("matmul.cu"));
  const KnobVerdict* y = analysis.find("thread_merge_y");
  ASSERT_NE(y, nullptr);
  EXPECT_TRUE(y->applies) << y->reason;
  EXPECT_EQ(y->reason,
            "one thread does the work of N along y; statements written per copy: 4, conditions "
            "predicated: 1, loads the copies share in registers: 1");
  ASSERT_EQ(y->places.size(), 1u);
  EXPECT_EQ(y->places[0].str(), "matmul.cu:8:31");
  EXPECT_EQ(y->places[0].text, "B[k * n + col]");
  const KnobVerdict* layout = analysis.find("merge_layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_TRUE(layout->applies);
}

TEST(ThreadMerge, KeepsAnEffectPerCopyEvenWhereItIsIndependent) {
  const Rewrite rewrite = source_engine().rewrite(
      test::engine_unit("kernel.cu", R"(__global__ void k(int* count, float* a) {
  a[threadIdx.x] = 1.0f;
  atomicAdd(count, 1);
  count[1] += 2;
  count[2] = 3;
}
)"),
      merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source, R"(__global__ void k(int* count, float* a) {
  a[threadIdx.x] = 1.0f;
  a[(threadIdx.x + blockDim.x)] = 1.0f;
  atomicAdd(count, 1);
  atomicAdd(count, 1);
  count[1] += 2;
  count[1] += 2;
  count[2] = 3;
}
)");
}

TEST(ThreadMerge, RefusesWarpSynchronousVolatileMemory) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a) {
  __shared__ float s[64];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {
    volatile float* v = s;
    v[threadIdx.x] += v[threadIdx.x + 32];
  }
  a[threadIdx.x] = s[threadIdx.x];
}
)"),
            "kernel.cu:6:25: thread_merge_x: the engine does not merge kernels with volatile "
            "memory (warp-synchronous code) (`s`)");
}

TEST(ThreadMerge, RefusesASharedArrayDeclaredUnderADependentCondition) {
  EXPECT_EQ(refusal_of(R"(__global__ void k(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __shared__ float s[64];
    s[threadIdx.x] = a[i];
    a[i] = s[threadIdx.x] * 2.0f;
  }
}
)"),
            "kernel.cu:4:5: thread_merge_x: a __shared__ declaration inside a statement that "
            "depends on threadIdx.x; declare it at the kernel's top level (`__shared__ float "
            "s[64];`)");
}

// A copy the naive kernel would not run divides by zero where the divisor depends on the index
// (here for i == n): its initialiser runs under the copy's predicate. A divisor the copies
// share needs none.
TEST(ThreadMerge, GuardsAnIntegerDivisionByAValueOfTheIndex) {
  const Rewrite rewrite =
      source_engine().rewrite(test::engine_unit("kernel.cu", R"(__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int q = n / (n - i);
  int r = i / n;
  out[i] = q + r;
}
)"),
                              merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source, R"(__global__ void k(int* out, int n) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int i_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x + blockDim.x);
  bool gputune_p0 = i_gputune0 >= n;
  bool gputune_p1 = i_gputune1 >= n;
  if (!gputune_p0 || !gputune_p1) {
  int q_gputune0 = !gputune_p0 ? (n / (n - i_gputune0)) : (int)0;
  int q_gputune1 = !gputune_p1 ? (n / (n - i_gputune1)) : (int)0;
  int r_gputune0 = i_gputune0 / n;
  int r_gputune1 = i_gputune1 / n;
  if (!gputune_p0) out[i_gputune0] = q_gputune0 + r_gputune0;
  if (!gputune_p1) out[i_gputune1] = q_gputune1 + r_gputune1;
  }
}
)");
}

// In a template's pattern the AST does not say which expressions read memory: the merge refuses
// what it cannot analyse. A parameter of a value (`int N`) leaves the types known.
TEST(ThreadMerge, RefusesExpressionsOfATemplateParametersType) {
  EXPECT_EQ(refusal_of(R"(template <typename T>
__global__ void k(const T* a, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T v = a[i];
  out[i] = v + v;
}
)"),
            "kernel.cu:5:9: thread_merge_x: the engine does not merge kernels with an expression "
            "whose type depends on a template parameter (`a[i]`)");
  const std::string text = R"(template <int N>
__global__ void k(const float* a, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = a[i];
  out[i] = v * N;
}
template __global__ void k<3>(const float*, float*, int);
)";
  const Rewrite rewrite = source_engine().rewrite(test::engine_unit("kernel.cu", text), merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_NE(rewrite.source.find("float v_gputune0 = !gputune_p0 ? (a[i_gputune0]) : (float)0;"),
            std::string::npos)
      << rewrite.source;
  EXPECT_EQ(test::nvrtc_errors(test::engine_unit("kernel.cu", text), rewrite.source, {"k<3>"}), "");
}

TEST(ThreadMerge, ShrinksTheKernelsBoundOnItsThreads) {
  const std::string text = R"(__global__ void __launch_bounds__(256, 2) k(float* a) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f;
}
)";
  const Rewrite rewrite = source_engine().rewrite(test::engine_unit("kernel.cu", text), merge_x(4));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source.substr(0, rewrite.source.find('\n')),
            "__global__ void __launch_bounds__((256) / 4, 2) k(float* a) {");
  EXPECT_EQ(test::nvrtc_errors(test::engine_unit("kernel.cu", text), rewrite.source, {"k"}), "");
}

// A macro that is the whole of what a copy rewrites stands for it in the copy.
TEST(ThreadMerge, RewritesAWholeMacroThatIsTheIndex) {
  const std::string text = R"(#define TX threadIdx.x
__global__ void k(float* a) { a[blockIdx.x * blockDim.x + TX] = 1.0f; }
)";
  const Rewrite rewrite = source_engine().rewrite(test::engine_unit("kernel.cu", text), merge_x(2));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source, R"(#define TX threadIdx.x
__global__ void k(float* a) { a[blockIdx.x * (blockDim.x * 2) + threadIdx.x] = 1.0f;
a[blockIdx.x * (blockDim.x * 2) + (threadIdx.x + blockDim.x)] = 1.0f; }
)");
  EXPECT_EQ(test::nvrtc_errors(test::engine_unit("kernel.cu", text), rewrite.source, {"k"}), "");
}

}  // namespace
}  // namespace gputune::engine
