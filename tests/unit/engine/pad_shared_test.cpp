#include <gtest/gtest.h>

#include "engine/engine.h"
#include "support/engine_golden.h"

namespace gputune::engine {
namespace {

using test::engine_fixture;
using test::nvrtc_errors;

SourceKnobs pad(std::vector<std::pair<std::string, int>> targets) {
  SourceKnobs knobs;
  knobs.pad_shared = std::move(targets);
  return knobs;
}

KernelUnit inline_unit(const std::string& text) { return test::engine_unit("tiles.cu", text); }

const std::vector<std::pair<std::string, std::string>> kTile16 = {{"TILE", "16"}};

TEST(PadShared, PadsALiteralExtent) {
  test::expect_engine_rewrite(engine_fixture("pad_transpose.cu"), pad({{"", 1}}),
                              "pad_transpose.pad_1.cu", {"transpose_tiled"});
}

TEST(PadShared, PadsAnExtentWrittenAsAnExpressionOfTheSpecsDefines) {
  test::expect_engine_rewrite(engine_fixture("pad_tile_macro.cu", kTile16), pad({{"", 2}}),
                              "pad_tile_macro.pad_2.cu", {"column_sums"});
}

TEST(PadShared, WithUnrollOnTheLoopThatReadsTheTile) {
  SourceKnobs knobs = pad({{"tile", 1}});
  knobs.unroll = {{"13", 4}};
  test::expect_engine_rewrite(engine_fixture("pad_tile_macro.cu", kTile16), knobs,
                              "pad_tile_macro.pad_tile_1.unroll_line13_4.cu", {"column_sums"});
}

TEST(PadShared, TheVerdictNamesThePaddedArraysAndTheOnesLeft) {
  const Analysis analysis =
      source_engine().analyse(engine_fixture("pad_tile_macro.cu", kTile16),
                              {"pad_shared", "pad_shared(partial)", "pad_shared(scratch)"});
  ASSERT_EQ(analysis.knobs.size(), 3u);
  EXPECT_TRUE(analysis.knobs[0].applies);
  EXPECT_EQ(analysis.knobs[0].reason,
            "pads the last extent of tile (pad_tile_macro.cu:4:20); leaves partial: "
            "pad_tile_macro.cu:5:20: one-dimensional: its row length is not known");
  ASSERT_EQ(analysis.knobs[0].places.size(), 2u);
  EXPECT_EQ(analysis.knobs[0].places[0].text, "__shared__ float tile[TILE][TILE+1]");
  EXPECT_FALSE(analysis.knobs[1].applies);
  EXPECT_EQ(analysis.knobs[1].reason,
            "partial: pad_tile_macro.cu:5:20: one-dimensional: its row length is not known");
  EXPECT_FALSE(analysis.knobs[2].applies);
  EXPECT_EQ(analysis.knobs[2].reason, "no __shared__ array named 'scratch' in the kernels");
}

TEST(PadShared, RefusesAOneDimensionalArrayByName) {
  const Rewrite rewrite =
      source_engine().rewrite(engine_fixture("pad_tile_macro.cu", kTile16), pad({{"partial", 1}}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "pad_tile_macro.cu:5:20: pad_shared(partial): one-dimensional: its row length is not "
            "known (`__shared__ float partial[TILE]`)");
}

// Each use that shows the layout, the refusal naming it.
struct Leak {
  std::string use, message;
};

class PadSharedRefuses : public testing::TestWithParam<Leak> {};

TEST_P(PadSharedRefuses, AUseThatShowsTheLayout) {
  const std::string text =
      "__device__ float first(const float* p) { return p[0]; }\n"
      "__global__ void k(float* out) {\n"
      "  __shared__ float tile[16][16];\n"
      "  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];\n"
      "  __syncthreads();\n"
      "  " +
      GetParam().use +
      "\n"
      "}\n";
  const Rewrite rewrite = source_engine().rewrite(inline_unit(text), pad({{"tile", 1}}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message, GetParam().message) << text;
  const Analysis analysis = source_engine().analyse(inline_unit(text), {"pad_shared"});
  EXPECT_FALSE(analysis.knobs[0].applies);
}

INSTANTIATE_TEST_SUITE_P(
    Uses, PadSharedRefuses,
    testing::Values(
        Leak{"out[0] = first(tile[0]);",
             "tiles.cu:6:18: pad_shared(tile): it is passed to a function (`first(tile[0])`)"},
        Leak{"out[0] = first(&tile[0][0]);",
             "tiles.cu:6:19: pad_shared(tile): an element's address is taken (`&tile[0][0]`)"},
        Leak{"float (*rows)[16] = &tile[0]; out[0] = rows[1][1];",
             "tiles.cu:6:24: pad_shared(tile): its address is taken (`&tile[0]`)"},
        Leak{"out[0] = sizeof(tile);",
             "tiles.cu:6:19: pad_shared(tile): it is in sizeof (`sizeof(tile)`)"},
        Leak{"const float* row = tile[1]; out[0] = row[17];",
             "tiles.cu:6:22: pad_shared(tile): it is used with 1 of its 2 subscripts "
             "(`tile[1]`)"},
        Leak{"float (*rows)[16] = tile; out[0] = rows[1][1];",
             "tiles.cu:6:23: pad_shared(tile): it decays to a pointer (`tile`)"}));

TEST(PadShared, RefusesDynamicSharedMemory) {
  const KernelUnit unit = inline_unit(
      "__global__ void k(float* out) {\n"
      "  extern __shared__ float rows[][32];\n"
      "  rows[threadIdx.y][threadIdx.x] = out[threadIdx.x];\n"
      "}\n");
  const Rewrite rewrite = source_engine().rewrite(unit, pad({{"rows", 1}}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "tiles.cu:2:27: pad_shared(rows): it is extern (dynamic shared memory): its extents "
            "are the launch's (`extern __shared__ float rows[][32]`)");
}

TEST(PadShared, RefusesAnArrayDeclaredThroughAMacro) {
  const KernelUnit unit = inline_unit(
      "#define DECLARE_TILE(name) __shared__ float name[16][16]\n"
      "__global__ void k(float* out) {\n"
      "  DECLARE_TILE(tile);\n"
      "  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];\n"
      "}\n");
  const Rewrite rewrite = source_engine().rewrite(unit, pad({{"tile", 1}}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "tiles.cu:3:3: pad_shared(tile): it is declared through macro DECLARE_TILE, whose "
            "text cannot be edited for one array (`DECLARE_TILE(tile)`)");
}

TEST(PadShared, AtomicsOnOneElementAndTemplatesArePadded) {
  const KernelUnit unit = inline_unit(
      "template <int N>\n"
      "__global__ void histogram(int* out, const int* in) {\n"
      "  __shared__ int counts[N][N];\n"
      "  counts[threadIdx.y][threadIdx.x] = 0;\n"
      "  __syncthreads();\n"
      "  atomicAdd(&counts[in[threadIdx.x] % N][threadIdx.y], 1);\n"
      "  __syncthreads();\n"
      "  out[threadIdx.y * N + threadIdx.x] = counts[threadIdx.y][threadIdx.x];\n"
      "}\n");
  const Rewrite rewrite = source_engine().rewrite(unit, pad({{"", 1}}));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_NE(rewrite.source.find("__shared__ int counts[N][N + 1];"), std::string::npos)
      << rewrite.source;
  EXPECT_EQ(nvrtc_errors(unit, rewrite.source, {"histogram<16>"}), "");
}

TEST(PadShared, AThreeDimensionalArrayPadsItsLastExtent) {
  const KernelUnit unit = inline_unit(
      "__global__ void k(float* out) {\n"
      "  __shared__ float cube[4][8][ 8 ];\n"
      "  cube[threadIdx.z][threadIdx.y][threadIdx.x] = 1.0f;\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = cube[threadIdx.x % 4][threadIdx.z][threadIdx.y];\n"
      "}\n");
  const Rewrite rewrite = source_engine().rewrite(unit, pad({{"", 4}}));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_NE(rewrite.source.find("__shared__ float cube[4][8][ 8 + 4 ];"), std::string::npos)
      << rewrite.source;
  EXPECT_EQ(nvrtc_errors(unit, rewrite.source, {"k"}), "");
}

TEST(PadShared, ZeroLeavesTheTextAsItIs) {
  const KernelUnit unit = engine_fixture("pad_transpose.cu");
  const Rewrite rewrite = source_engine().rewrite(unit, pad({{"", 0}, {"tile", 0}}));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source, unit.text);
}

}  // namespace
}  // namespace gputune::engine
