// partition_offset: a 1-D grid's loops whose accesses stride between neighbouring blocks by a
// multiple of the memory partitions' span start at an offset per block; refused with the reason
// elsewhere.
#include <gtest/gtest.h>

#include "engine/engine.h"

namespace gputune::engine {
namespace {

KernelUnit unit(const std::string& text) {
  KernelUnit unit;
  unit.file_name = "k.cu";
  unit.text = text;
  return unit;
}

SourceKnobs offset() {
  SourceKnobs knobs;
  knobs.partition_offset = 1;
  return knobs;
}

// bench/engine/matvec.cu: one thread per row; neighbouring blocks' rows are blockDim.x*n words
// apart, so the blocks' j-th words camp on one partition wherever that is a multiple of 2 KiB.
constexpr const char* kMatvec =
    R"(__global__ void matvec(float* y, const float* A, const float* x, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float dot = 0.0f;
    for (int j = 0; j < n; ++j) {
      dot += A[(size_t)row * n + j] * x[j];
    }
    y[row] = dot;
  }
}
)";

TEST(PartitionOffset, EachBlockStartsTheRowLoopAPartitionFurtherIn) {
  const Rewrite rewrite = source_engine().rewrite(unit(kMatvec), offset());
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source,
            R"(__global__ void matvec(float* y, const float* A, const float* x, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float dot = 0.0f;
    for (long long gputune_r = 0; gputune_r < ((long long)(n) - (0)); ++gputune_r) {
      const int j = (0) + (int)((gputune_r + (long long)blockIdx.x * 64) % ((long long)(n) - (0)));  // partition_offset: block b starts 64*b words in
      dot += A[(size_t)row * n + j] * x[j];
    }
    y[row] = dot;
  }
}
)");
  const Analysis analysis = source_engine().analyse(unit(kMatvec), {"partition_offset"});
  const KnobVerdict* verdict = analysis.find("partition_offset");
  ASSERT_NE(verdict, nullptr);
  EXPECT_TRUE(verdict->applies) << verdict->reason;
  EXPECT_EQ(verdict->reason,
            "each block starts a partition further into the loop around A[(size_t)row * n + j], "
            "blocks 4*blockDim.x*n bytes apart");
  ASSERT_EQ(verdict->places.size(), 1u);
  EXPECT_EQ(verdict->places[0].line, 5);
}

TEST(PartitionOffset, ALoopWithoutBracesGetsOne) {
  const std::string text =
      "__global__ void rows(float* y, const double* A, int n) {\n"
      "  double s = 0;\n"
      "  for (int j = 1; j < n; j++) s += A[blockIdx.x * 256 + j];\n"
      "  y[blockIdx.x] = s;\n"
      "}\n";
  const Rewrite rewrite = source_engine().rewrite(unit(text), offset());
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source,
            "__global__ void rows(float* y, const double* A, int n) {\n"
            "  double s = 0;\n"
            "  for (long long gputune_r = 0; gputune_r < ((long long)(n) - (1)); ++gputune_r) { "
            "const int j = (1) + (int)((gputune_r + (long long)blockIdx.x * 32) % ((long long)(n) "
            "- (1)));  // partition_offset: block b starts 32*b words in\n"
            "    s += A[blockIdx.x * 256 + j]; }\n"
            "  y[blockIdx.x] = s;\n"
            "}\n");
}

struct Refused {
  const char* what;
  std::string text;
  std::string reason;
};

TEST(PartitionOffset, RefusesWithTheReason) {
  const std::vector<Refused> cases = {
      {"a 2-D grid",
       "__global__ void k(float* y, const float* A, int n) {\n"
       "  float s = 0;\n"
       "  for (int j = 0; j < n; ++j) s += A[(blockIdx.y * gridDim.x + blockIdx.x) * n + j];\n"
       "  y[blockIdx.x] = s;\n"
       "}\n",
       "k.cu:1:17: partition_offset: the grid is not one-dimensional: the kernel reads "
       "blockIdx.y (a 2-D grid's blocks take block_order's diagonal order instead)"},
      {"a block stride of 1 KiB, no multiple of 2 KiB",
       "__global__ void k(float* y, const float* A, int n) {\n"
       "  float s = 0;\n"
       "  for (int j = 0; j < n; ++j) s += A[blockIdx.x * 256 + j];\n"
       "  y[blockIdx.x] = s;\n"
       "}\n",
       "partition_offset: no global access in a loop that walks its words strides between "
       "neighbouring blocks by a multiple of the memory partitions' span (8 x 256 bytes)"},
      {"an order that matters",
       "__global__ void k(float* y, const float* A, int n) {\n"
       "  float s = 0;\n"
       "  for (int j = 0; j < n; ++j) s = s * 0.5f + A[blockIdx.x * n + j];\n"
       "  y[blockIdx.x] = s;\n"
       "}\n",
       "k.cu:3:3: partition_offset: the loop around A[blockIdx.x * n + j] cannot run from another "
       "start: its iterations depend on their order (`s = s * 0.5f + A[blockIdx.x * n + j]`)"},
      {"a store in the loop",
       "__global__ void k(float* y, const float* A, int n) {\n"
       "  for (int j = 0; j < n; ++j) y[blockIdx.x * n + j] = A[blockIdx.x * n + j];\n"
       "}\n",
       "k.cu:2:3: partition_offset: the loop around y[blockIdx.x * n + j] cannot run from another "
       "start: it writes global memory (y[blockIdx.x * n + j])"},
      {"a loop that steps by two",
       "__global__ void k(float* y, const float* A, int n) {\n"
       "  float s = 0;\n"
       "  for (int j = 0; j < n; j += 2) s += A[blockIdx.x * n + j];\n"
       "  y[blockIdx.x] = s;\n"
       "}\n",
       "partition_offset: no global access in a loop that walks its words strides"},
  };
  for (const Refused& c : cases) {
    const Rewrite rewrite = source_engine().rewrite(unit(c.text), offset());
    EXPECT_FALSE(rewrite.ok) << c.what << ":\n" << rewrite.source;
    EXPECT_NE(rewrite.message.find(c.reason), std::string::npos)
        << c.what << ": " << rewrite.message;
    const Analysis analysis = source_engine().analyse(unit(c.text), {"partition_offset"});
    const KnobVerdict* verdict = analysis.find("partition_offset");
    ASSERT_NE(verdict, nullptr);
    EXPECT_FALSE(verdict->applies) << c.what;
  }
}

}  // namespace
}  // namespace gputune::engine
