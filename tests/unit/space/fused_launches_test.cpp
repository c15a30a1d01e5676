// Loop fusion in a space (bench/engine/stencil_chain.yaml): the fused launch that replaces the
// first `fuse` launches, the limits beside it, and every variant compiling with NVRTC for sm_90.
#include "space/fused_launches.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "process/compile_pool.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

const Problem& chain() {
  static const Problem problem(load_spec(test::source_dir() + "/bench/engine/stencil_chain.yaml"));
  return problem;
}

uint64_t index_of(const Problem& problem, int bx, int by, int fuse, int merge) {
  const SearchSpace& space = problem.space();
  std::vector<size_t> digits(space.dimensions().size(), 0);
  for (const auto& [name, value] : {std::pair<std::string, int>{"BX", bx},
                                    {"BY", by},
                                    {"fuse", fuse},
                                    {"thread_merge_y", merge}}) {
    const int d = space.dimension_index(name);
    const auto& values = space.dimensions()[d].values;
    size_t k = 0;
    while (k < values.size() && values[k].as_number() != value) ++k;
    EXPECT_LT(k, values.size()) << name;
    digits[d] = k;
  }
  return space.encode(digits);
}

std::vector<std::string> argument_names(const Problem& problem, const Launch& launch) {
  std::vector<std::string> names;
  for (size_t a : launch.arguments) names.push_back(problem.spec().arguments[a].name);
  return names;
}

TEST(FusedLaunches, FusingThreeLaunchesGivesOneLaunchOfTheFusedKernel) {
  const Variant v = chain().variant(index_of(chain(), 64, 8, 3, 1));
  ASSERT_EQ(v.refusal, "");
  ASSERT_EQ(v.launches.size(), 1u);
  EXPECT_EQ(v.kernel_name_expressions[v.launches[0].kernel], "smooth_a_gputune_fused");
  EXPECT_EQ(argument_names(chain(), v.launches[0]),
            (std::vector<std::string>{"in", "t1", "nx", "ny", "t2", "out"}));
  EXPECT_EQ(v.launches[0].block, (std::array<uint32_t, 3>{64, 8, 1}));
  EXPECT_EQ(v.launches[0].grid, (std::array<uint32_t, 3>{128, 1024, 1}));
  EXPECT_NE(v.source.find("__global__ void smooth_a_gputune_fused(const float* gputune_in, "
                          "float* gputune_t1, int gputune_nx, int gputune_ny, float* "
                          "gputune_t2, float* gputune_out) {"),
            std::string::npos)
      << v.source;
}

TEST(FusedLaunches, FusingTwoKeepsTheThirdLaunch) {
  const Variant v = chain().variant(index_of(chain(), 32, 8, 2, 1));
  ASSERT_EQ(v.refusal, "");
  ASSERT_EQ(v.launches.size(), 2u);
  EXPECT_EQ(v.kernel_name_expressions[v.launches[0].kernel], "smooth_a_gputune_fused");
  EXPECT_EQ(v.kernel_name_expressions[v.launches[1].kernel], "smooth_c");
  EXPECT_EQ(argument_names(chain(), v.launches[1]),
            (std::vector<std::string>{"t2", "out", "nx", "ny"}));
  const Variant unfused = chain().variant(index_of(chain(), 32, 8, 0, 1));
  EXPECT_EQ(unfused.launches.size(), 3u);
  EXPECT_EQ(unfused.source, "");
}

TEST(FusedLaunches, AThreadMergeGivesTheFusedTileFewerThreads) {
  const Variant v = chain().variant(index_of(chain(), 64, 32, 3, 4));
  ASSERT_EQ(v.refusal, "");
  ASSERT_EQ(v.launches.size(), 1u);
  // The tile stays the naive launch's 64 x 32 block (the grid too); 64 x 8 threads loop over it.
  EXPECT_EQ(v.launches[0].block, (std::array<uint32_t, 3>{64, 8, 1}));
  EXPECT_EQ(v.launches[0].grid, (std::array<uint32_t, 3>{128, 256, 1}));
  EXPECT_NE(v.source.find("64 x 32 tile (64 x 8 threads)"), std::string::npos) << v.source;
  EXPECT_NE(v.source.find("gputune_c += 512"), std::string::npos) << v.source;
  const engine::FusionFacts& facts = chain().engine_knobs().analysis().fusion;
  EXPECT_EQ(facts.fusable, 3);
  // Two swap arrays of (64 + 4) x (8 + 4) and (64 + 2) x (8 + 2) floats.
  EXPECT_EQ(engine::fused_shared_bytes(facts, 3, {64, 8, 1}), 4u * (68 * 12 + 66 * 10));
}

TEST(FusedLaunches, EveryVariantOfTheChainCompilesForSm90) {
  CompilePool compiler(0);
  const std::vector<Measurement> results = compile_all(chain(), compiler, "sm_90");
  EXPECT_EQ(results.size(), chain().space().count_valid());
  for (const Measurement& m : results) {
    EXPECT_EQ(m.status, Status::kOk)
        << chain().space().describe(m.config_index) << ": " << m.message;
  }
}

}  // namespace
}  // namespace gputune
