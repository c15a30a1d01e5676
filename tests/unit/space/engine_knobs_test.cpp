// The transformation engine's knobs in a space: the merged launches, the limits that keep the
// space to what the engine can do with a kernel, the rewritten source, and a kernel Clang
// cannot parse. The kernels are tests/fixtures/engine/*_int_*.
#include "space/engine_knobs.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "gputune/error.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

std::string fixture(const std::string& name) {
  return test::source_dir() + "/tests/fixtures/engine/" + name;
}

// The index of the config whose values `json` gives (the others at the baseline's).
uint64_t index_of(const Problem& problem, const std::string& json) {
  const nlohmann::json want = nlohmann::json::parse(json);
  const SearchSpace& space = problem.space();
  std::vector<size_t> digits = space.decode(problem.baseline_index());
  for (const auto& [name, value] : want.items()) {
    const int d = space.dimension_index(name);
    EXPECT_GE(d, 0) << name;
    const auto& values = space.dimensions()[d].values;
    size_t k = 0;
    while (k < values.size() && nlohmann::json::parse(values[k].json()) != value) ++k;
    EXPECT_LT(k, values.size()) << name << "=" << value;
    digits[d] = k;
  }
  return space.encode(digits);
}

uint64_t pruned_for(const Problem& problem, const std::string& reason_start) {
  for (const PrunedConfigs& pruned : problem.pruned()) {
    if (pruned.reason.rfind(reason_start, 0) == 0) return pruned.configs;
  }
  return 0;
}

TEST(EngineKnobs, AnEngineOnlySpecGivesASpaceWhoseBaselineIsTheKernelAsWritten) {
  const Problem problem(load_spec(fixture("vector_add_int.yaml")));
  EXPECT_EQ(problem.space().size(), 24u);
  EXPECT_EQ(problem.space().json(problem.baseline_index()),
            R"({"thread_merge_x":1,"merge_layout":"strided","block_merge_x":1,"launch_bounds":0})");
  const Variant baseline = problem.variant(problem.baseline_index());
  EXPECT_EQ(baseline.source, "");
  EXPECT_EQ(baseline.refusal, "");
  EXPECT_EQ(baseline.launches.at(0).block[0], 256u);
  EXPECT_EQ(baseline.launches.at(0).grid[0], 391u);  // ceil(100003 / 256)
  EXPECT_TRUE(baseline.launches.at(0).trailing_arguments.empty());
  EXPECT_EQ(problem.engine_note(), "");
}

TEST(EngineKnobs, MergesReshapeTheLaunchAndPassTheOriginalGrid) {
  const Problem problem(load_spec(fixture("stencil2d_int.yaml")));
  const Variant v = problem.variant(
      index_of(problem, R"({"thread_merge_y":2,"block_merge_x":2,"block_merge_y":3})"));
  const Launch& launch = v.launches.at(0);
  // The spec's block [32, 8] and grid [ceil(1001/32), ceil(517/8)] = [32, 65].
  EXPECT_EQ(launch.block, (std::array<uint32_t, 3>{64, 12, 1}));  // 32*2, 8/2*3
  EXPECT_EQ(launch.grid, (std::array<uint32_t, 3>{16, 22, 1}));   // ceil(32/2), ceil(65/3)
  EXPECT_EQ(launch.trailing_arguments, (std::vector<uint32_t>{32, 65}));
}

TEST(EngineKnobs, ThreadMergeMustDivideTheBlockAndMergedBlocksMustFit) {
  const Problem problem(load_spec(fixture("saxpy_int.yaml")));
  // BLOCK 96 with thread_merge_x 64: 3 block merges x 2 launch bounds.
  EXPECT_EQ(pruned_for(problem, "have a thread merge that does not divide"), 6u);
  // Threads after merging: BLOCK 96 and 128 without a thread merge, merged 16 blocks: 1536 and
  // 2048; with thread_merge_x 2 they fit (768, 1024).
  EXPECT_EQ(pruned_for(problem, "exceed 1024 threads per block"), 4u);
  EXPECT_FALSE(problem.space().valid(
      index_of(problem, R"({"BLOCK":96,"thread_merge_x":64,"block_merge_x":1})")));
}

TEST(EngineKnobs, StagedTilesAboveTheStaticSharedMemoryAreOutOfTheSpace) {
  const Problem problem(load_spec(test::source_dir() + "/bench/engine/transpose.yaml"));
  // The naive block 128 x 64 (thread_merge_x 4, thread_merge_y 8): a tile of 32 KiB, twice
  // with block_merge_x 2, padded or not, in either layout.
  EXPECT_EQ(pruned_for(problem, "exceed the 49152 bytes of static shared memory"), 4u);
  const char* too_big =
      R"({"stage_shared":1,"pad_shared":1,"thread_merge_x":4,"thread_merge_y":8,"block_merge_x":2})";
  EXPECT_FALSE(problem.space().valid(index_of(problem, too_big)));
  const char* fits =
      R"({"stage_shared":1,"pad_shared":1,"thread_merge_x":4,"thread_merge_y":8,"block_merge_x":1})";
  EXPECT_TRUE(problem.space().valid(index_of(problem, fits)));
}

TEST(EngineKnobs, LayoutsWithoutAThreadMergeAreTheSameCode) {
  const Problem problem(load_spec(fixture("vector_add_int.yaml")));
  // merge_layout consecutive with thread_merge_x 1: 2 block merges x 2 launch bounds.
  EXPECT_EQ(pruned_for(problem, "set merge_layout without a thread merge"), 4u);
}

TEST(EngineKnobs, LaunchBoundsUseTheThreadsAfterMerging) {
  const Problem problem(load_spec(fixture("vector_add_int.yaml")));
  const Variant bounded = problem.variant(index_of(problem, R"({"launch_bounds":2})"));
  ASSERT_EQ(bounded.refusal, "");
  EXPECT_NE(bounded.source.find("__global__ void __launch_bounds__(256, 2) vector_add("),
            std::string::npos)
      << bounded.source;
  const Variant merged =
      problem.variant(index_of(problem, R"({"launch_bounds":2,"thread_merge_x":4})"));
  // Until the engine merges threads it refuses; then the kernel's block is 64 threads.
  if (merged.refusal.empty()) {
    EXPECT_NE(merged.source.find("__launch_bounds__(64, 2)"), std::string::npos) << merged.source;
  } else {
    EXPECT_NE(merged.refusal.find("thread_merge_x"), std::string::npos) << merged.refusal;
  }
}

TEST(EngineKnobs, AKnobTheEngineRefusesKeepsItsNeutralValueAndSaysWhy) {
  Spec spec = load_spec(fixture("vector_add_int.yaml"));
  spec.transforms.push_back({"pad_shared", {Value(int64_t{0}), Value(int64_t{1})}, {}, true});
  check_spec(spec);
  const Problem problem(spec);
  bool found = false;
  for (const PrunedConfigs& pruned : problem.pruned()) {
    if (pruned.reason.rfind("set pad_shared other than 0, which the engine refuses", 0) != 0) {
      continue;
    }
    found = true;
    EXPECT_GT(pruned.configs, 0u);
  }
  EXPECT_TRUE(found);
  const uint64_t padded = index_of(problem, R"({"pad_shared":1})");
  EXPECT_FALSE(problem.space().valid(padded));
  // Asked anyway (gputune source --config), the variant is a refusal, which compiles to a
  // failure with the engine's message, without NVRTC.
  const Variant v = problem.variant(padded);
  EXPECT_NE(v.refusal.find("pad_shared"), std::string::npos) << v.refusal;
  const CompileRequest request = compile_request(problem, v, "sm_90");
  EXPECT_EQ(request.refusal, v.refusal);
  const CompiledKernel kernel = make_nvrtc_compiler()->compile(request);
  EXPECT_FALSE(kernel.ok);
  EXPECT_EQ(kernel.log, v.refusal);
}

TEST(EngineKnobs, AKernelClangCannotParseKeepsTheKnobsNeutralWithOneNote) {
  const Problem problem(load_spec(fixture("byte_distance_int.yaml")));
  EXPECT_NE(problem.engine_note().find("byte_distance_int.cu:6:21: error: use of undeclared "
                                       "identifier '__vabsdiffu4'"),
            std::string::npos)
      << problem.engine_note();
  EXPECT_NE(problem.engine_note().find("(thread_merge_x, launch_bounds) keep their neutral"),
            std::string::npos)
      << problem.engine_note();
  // BLOCK stays a dimension: 2 configs of the 8.
  EXPECT_EQ(problem.space().count_valid(), 2u);
  const Variant v = problem.variant(index_of(problem, R"({"BLOCK":256})"));
  EXPECT_EQ(v.source, "");
  EXPECT_EQ(v.refusal, "");
}

TEST(EngineKnobs, TheEngineParsesWithTheVariantsMacrosAndIncludePaths) {
  const Problem problem(load_spec(fixture("saxpy_int.yaml")));
  const engine::KernelUnit unit = problem.kernel_unit(index_of(problem, R"({"BLOCK":128})"));
  EXPECT_EQ(unit.file_name, fixture("saxpy_int.cu"));
  EXPECT_EQ(unit.kernels, (std::vector<std::string>{"saxpy"}));
  EXPECT_EQ(unit.include_dirs.at(0), test::source_dir() + "/tests/fixtures/engine");
  ASSERT_EQ(unit.defines.size(), 1u);
  EXPECT_EQ(unit.defines[0], (std::pair<std::string, std::string>{"BLOCK", "128"}));
}

TEST(EngineKnobs, KernelFunctionNames) {
  EXPECT_EQ(kernel_function_name("transpose<TILE, PAD>"), "transpose");
  EXPECT_EQ(kernel_function_name("ns::k<2>"), "k");
  EXPECT_EQ(kernel_function_name("saxpy"), "saxpy");
}

}  // namespace
}  // namespace gputune
