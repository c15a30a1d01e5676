// vector_width: a thread's reads of neighbouring words of a shared array's row, one after
// another into registers, as one float2 / float4 read where the alignment is provable; refused
// with the reason elsewhere.
#include <gtest/gtest.h>

#include <string>

#include "engine/engine.h"
#include "support/engine_golden.h"
#include "support/text.h"

namespace gputune::engine {
namespace {

using testing::occurrences;

KernelUnit bench_matmul() {
  KernelUnit unit = test::engine_fixture("../../../bench/engine/matmul.cu");
  unit.file_name = "matmul.cu";
  return unit;
}

// The staged matrix multiply, 4 x 4 outputs a thread with the consecutive layout.
SourceKnobs merged_matmul(int width) {
  SourceKnobs knobs;
  knobs.stage_shared = 16;
  knobs.naive_blocks["matmul"] = {64, 64, 1};
  knobs.thread_merge_x = 4;
  knobs.thread_merge_y = 4;
  knobs.merge_layout = MergeLayout::kConsecutive;
  knobs.vector_width = width;
  return knobs;
}

TEST(VectorWidth, TheConsecutiveCopiesOfATileReadBecomeOneFloat4) {
  const KernelUnit unit = bench_matmul();
  const Rewrite rewrite = source_engine().rewrite(unit, merged_matmul(4));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  // B's four columns, in the whole strip's loop and in the tail's.
  EXPECT_EQ(occurrences(rewrite.source, "const float4 gputune_v"), 2u) << rewrite.source;
  EXPECT_EQ(occurrences(rewrite.source,
                        " = *reinterpret_cast<const float4*>(&gputune_B_tile[i - gputune_s]"
                        "[(threadIdx.x * 4)]);"),
            2u);
  EXPECT_EQ(occurrences(rewrite.source, "= gputune_v0.w;"), 1u);
  EXPECT_EQ(occurrences(rewrite.source, "__attribute__((aligned(16))) "), 1u);
  EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {"matmul"}), "");
  // Two groups of two with float2.
  const Rewrite pairs = source_engine().rewrite(unit, merged_matmul(2));
  ASSERT_TRUE(pairs.ok) << pairs.message;
  EXPECT_EQ(occurrences(pairs.source, "const float2 gputune_v"), 4u) << pairs.source;
  EXPECT_EQ(test::nvrtc_errors(unit, pairs.source, {"matmul"}), "");
}

TEST(VectorWidth, RefusesWhereNoNeighbouringWordsAreRead) {
  SourceKnobs knobs = merged_matmul(4);
  knobs.merge_layout = MergeLayout::kStrided;  // the copies are a block's width apart
  const Rewrite rewrite = source_engine().rewrite(bench_matmul(), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message.rfind("matmul.cu:3:17: vector_width: no 4 neighbouring words of an "
                                  "array are read one after another into registers",
                                  0),
            0u)
      << rewrite.message;
}

TEST(VectorWidth, RefusesAPaddedRow) {
  SourceKnobs knobs = merged_matmul(4);
  knobs.pad_shared = {{"", 1}};
  const Rewrite rewrite = source_engine().rewrite(bench_matmul(), knobs);
  EXPECT_FALSE(rewrite.ok);
  EXPECT_NE(rewrite.message.find("vector_width: the rows of gputune_B_tile are 65 elements "
                                 "(padded?), not a multiple of 4"),
            std::string::npos)
      << rewrite.message;
}

// The kernel's own shared array: an aligned pair is widened, a pair starting at an odd word is
// not.
TEST(VectorWidth, WidensAKernelsOwnArrayOnlyWhereTheFirstWordIsAligned) {
  const auto unit = [](const std::string& first) {
    return test::engine_unit(
        "k.cu",
        "__global__ void k(float* out, const float* in) {\n"
        "  __shared__ float tile[8][64];\n"
        "  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 64 + threadIdx.x];\n"
        "  __syncthreads();\n"
        "  float a = tile[threadIdx.y][" +
            first +
            "];\n"
            "  float b = tile[threadIdx.y][" +
            first +
            " + 1];\n"
            "  out[threadIdx.y * 64 + threadIdx.x] = a - b;\n"
            "}\n");
  };
  SourceKnobs knobs;
  knobs.vector_width = 2;
  const Rewrite aligned = source_engine().rewrite(unit("2 * (threadIdx.x / 2)"), knobs);
  EXPECT_FALSE(aligned.ok) << "a division is not a linear form";
  const Rewrite pair = source_engine().rewrite(unit("(threadIdx.x % 32) * 2"), knobs);
  EXPECT_FALSE(pair.ok);
  const Rewrite plain = source_engine().rewrite(unit("2 * threadIdx.x"), knobs);
  ASSERT_TRUE(plain.ok) << plain.message;
  EXPECT_EQ(occurrences(plain.source,
                        "const float2 gputune_v0 = *reinterpret_cast<const "
                        "float2*>(&tile[threadIdx.y][2 * threadIdx.x]);"),
            1u)
      << plain.source;
  EXPECT_EQ(occurrences(plain.source, "__attribute__((aligned(8))) "), 1u);
  EXPECT_EQ(test::nvrtc_errors(unit("2 * threadIdx.x"), plain.source, {"k"}), "");
  const Rewrite odd = source_engine().rewrite(unit("2 * threadIdx.x + 1"), knobs);
  EXPECT_FALSE(odd.ok);
  EXPECT_EQ(odd.message,
            "k.cu:2:20: vector_width: the first word's index `2 * threadIdx.x + 1` is not 2 "
            "times an integer (`__shared__ float tile[8][64]`)");
}

// The method's pairs in global memory: `in[2 * i]` and `in[2 * i + 1]` (a complex number's two
// halves) become one float2 read where the pointer is aligned to 8 bytes, which only the run
// time knows; elsewhere the two words are read as before.
KernelUnit complex_magnitude(const std::string& first) {
  return test::engine_unit("complex_abs.cu",
                           "__global__ void complex_abs(float* out, const float* in, int n) {\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "  if (i < n) {\n"
                           "    float re = in[" +
                               first +
                               "];\n"
                               "    float im = in[" +
                               first +
                               " + 1];\n"
                               "    out[i] = sqrtf(re * re + im * im);\n"
                               "  }\n"
                               "}\n");
}

TEST(VectorWidth, APairOfAPointersWordsBecomesOneFloat2WhereThePointerIsAligned) {
  SourceKnobs knobs;
  knobs.vector_width = 2;
  test::expect_engine_rewrite(complex_magnitude("2 * i"), knobs, "complex_abs.vector_width_2.cu",
                              {"complex_abs"});
  const Analysis analysis = source_engine().analyse(complex_magnitude("2 * i"), {"vector_width"});
  EXPECT_TRUE(analysis.find("vector_width")->applies) << analysis.find("vector_width")->reason;
  const Rewrite odd = source_engine().rewrite(complex_magnitude("2 * i + 1"), knobs);
  EXPECT_FALSE(odd.ok);
  EXPECT_EQ(odd.message,
            "complex_abs.cu:1:54: vector_width: the first word's index `2 * i + 1` is not 2 "
            "times an integer (`const float* in`)");
}

}  // namespace
}  // namespace gputune::engine
