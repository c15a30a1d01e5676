// gputune transforms and gputune source on the engine's fixtures (tests/fixtures/engine), and
// every variant of every fixture compiling with NVRTC, whatever transformations the engine
// has registered.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

using testing::run_gputune;

std::string fixture(const std::string& name) {
  return test::source_dir() + "/tests/fixtures/engine/" + name;
}

const nlohmann::json* find_named(const nlohmann::json& list, const std::string& name) {
  for (const nlohmann::json& item : list) {
    if (item["name"] == name) return &item;
  }
  return nullptr;
}

TEST(EngineCli, TransformsListsTheSpecsKnobsThenTheOnesItCouldAdd) {
  const auto result = run_gputune("transforms " + fixture("matmul_int.yaml") + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["note"], "");
  const nlohmann::json& transforms = report["transforms"];
  const std::vector<std::string> listed = {"thread_merge_x", "thread_merge_y", "block_merge_x",
                                           "block_merge_y",  "unroll(k_loop)", "launch_bounds"};
  ASSERT_GE(transforms.size(), listed.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(transforms[i]["name"], listed[i]);
    EXPECT_TRUE(transforms[i]["listed"]);
    EXPECT_TRUE(transforms[i]["engine"]);
    // The neutral value is always legal.
    EXPECT_TRUE(transforms[i]["values"][0]["legal"]) << transforms[i].dump();
  }
  for (const char* added : {"unroll", "merge_layout", "pad_shared"}) {
    const nlohmann::json* knob = find_named(transforms, added);
    ASSERT_NE(knob, nullptr) << added;
    EXPECT_FALSE((*knob)["listed"]);
  }
  const nlohmann::json* bounds = find_named(transforms, "launch_bounds");
  ASSERT_NE(bounds, nullptr);
  EXPECT_TRUE((*bounds)["applies"]);
  EXPECT_TRUE((*bounds)["values"][1]["legal"]);
  ASSERT_FALSE((*bounds)["places"].empty());
  EXPECT_EQ((*bounds)["places"][0]["line"], 3);  // the kernel's declaration
  // A matrix multiply has no 2-D shared array of its own to pad; it pads the tiles
  // stage_shared gives its loop.
  const nlohmann::json* pad = find_named(transforms, "pad_shared");
  EXPECT_TRUE((*pad)["applies"]);
  EXPECT_EQ((*pad)["reason"].get<std::string>().rfind("pads the tiles of stage_shared", 0), 0u)
      << pad->dump();
  const nlohmann::json* stage = find_named(transforms, "stage_shared");
  ASSERT_NE(stage, nullptr);
  EXPECT_TRUE((*stage)["applies"]) << stage->dump();
}

TEST(EngineCli, TransformsTextSaysWhatEachDoesAndWhere) {
  const auto result = run_gputune("transforms " + fixture("vector_add_int.yaml"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\nlaunch_bounds: applies: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  legal values: 0, 2\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\nknobs of the engine the spec could add:\n"), std::string::npos);
  EXPECT_NE(result.out.find("  remedies: register_cap (raise)\n"), std::string::npos);
}

TEST(EngineCli, TransformsPrintTheAccessAnalysis) {
  const auto result = run_gputune("transforms " + fixture("transpose_read.yaml"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string read = fixture("transpose_read.cu") +
                           ":7:25: in[x * cols + y] (read of in in transpose_read)\n"
                           "  index: cols*threadIdx.x + threadIdx.y + blockDim.x*cols*blockIdx.x + "
                           "blockDim.y*blockIdx.y (thread/block ids)\n"
                           "  coalescing: uncoalesced, neighbouring threads in x are cols words "
                           "apart\n"
                           "  staging: stage_shared stages it through a shared tile (a "
                           "cooperative, coalesced load before " +
                           fixture("transpose_read.cu") + ":6:3)\n";
  EXPECT_NE(result.out.find("\nglobal accesses (the engine's access analysis):\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find(read), std::string::npos) << result.out;
  // pad_shared pads the tile stage_shared creates.
  EXPECT_NE(result.out.find("\npad_shared: applies: pads the tiles of stage_shared"),
            std::string::npos)
      << result.out;
  const auto json = run_gputune("transforms " + fixture("transpose_read.yaml") + " --json");
  const nlohmann::json accesses = nlohmann::json::parse(json.out)["accesses"];
  ASSERT_EQ(accesses.size(), 2u);
  EXPECT_EQ(accesses[0]["array"], "out");
  EXPECT_EQ(accesses[0]["coalescing"], "coalesced");
  EXPECT_EQ(accesses[1]["coalescing"], "uncoalesced");
  EXPECT_EQ(accesses[1]["index_class"], "thread/block ids");
}

TEST(EngineCli, AKernelTheEngineCannotParseIsSaidOnceWithClangsLocation) {
  const std::string where =
      fixture("byte_distance_int.cu") + ":6:21: error: use of undeclared identifier '__vabsdiffu4'";
  const auto transforms = run_gputune("transforms " + fixture("byte_distance_int.yaml"));
  ASSERT_EQ(transforms.exit_code, 0) << transforms.err;
  EXPECT_NE(transforms.out.find("warning: " + where), std::string::npos) << transforms.out;
  const auto search = run_gputune("search " + fixture("byte_distance_int.yaml") +
                                  " --compile-only --arch sm_90 --no-cache --json");
  ASSERT_EQ(search.exit_code, 0) << search.err;
  const nlohmann::json compiled = nlohmann::json::parse(search.out);
  EXPECT_EQ(compiled["compiled"], 2);  // BLOCK's two values; the engine's knobs stay neutral
  EXPECT_EQ(compiled["failed"], 0);
  const std::string warning = "gputune: warning: " + where;
  const size_t first = search.err.find(warning);
  EXPECT_NE(first, std::string::npos) << search.err;
  EXPECT_EQ(search.err.find(warning, first + 1), std::string::npos) << search.err;
}

TEST(EngineCli, SourcePrintsTheVariantsKernelFileAndItsLaunch) {
  const auto result =
      run_gputune("source " + fixture("vector_add_int.yaml") + " --config '{\"launch_bounds\":2}'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("__global__ void __launch_bounds__(256, 2) vector_add("),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.err.find("launch vector_add block [256, 1, 1] grid [391, 1, 1]"),
            std::string::npos)
      << result.err;
  const auto same =
      run_gputune("source " + fixture("vector_add_int.yaml") + " --config launch_bounds=2");
  EXPECT_EQ(same.out, result.out);
}

TEST(EngineCli, SourceDiffsAgainstTheKernelFile) {
  const auto result =
      run_gputune("source " + fixture("vector_add_int.yaml") + " --config launch_bounds=2 --diff");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string file = fixture("vector_add_int.cu");
  EXPECT_EQ(result.out.substr(0, file.size() + 5), "--- " + file + "\n") << result.out;
  EXPECT_NE(result.out.find("\n-__global__ void vector_add(float* c"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("\n+__global__ void __launch_bounds__(256, 2) vector_add("),
            std::string::npos)
      << result.out;
  const auto baseline = run_gputune("source " + fixture("vector_add_int.yaml") + " --diff");
  EXPECT_EQ(baseline.exit_code, 0);
  EXPECT_EQ(baseline.out, "");  // the baseline is the kernel as written
}

TEST(EngineCli, SourceRefusesAConfigOutsideTheSpace) {
  const auto index = run_gputune("source " + fixture("vector_add_int.yaml") + " --index 24");
  EXPECT_EQ(index.exit_code, 64) << index.err;  // EX_USAGE
  EXPECT_NE(index.err.find("--index 24 is not a config"), std::string::npos) << index.err;
  const auto value =
      run_gputune("source " + fixture("vector_add_int.yaml") + " --config launch_bounds=3");
  EXPECT_NE(value.err.find("is not among its values"), std::string::npos) << value.err;
}

// Every variant of every fixture compiles for sm_90: those the registered transformations
// make, and the baselines the others leave.
TEST(EngineCli, EveryVariantOfEveryFixtureCompiles) {
  namespace fs = std::filesystem;
  size_t specs = 0;
  for (const auto& entry : fs::directory_iterator(test::source_dir() + "/tests/fixtures/engine")) {
    if (entry.path().extension() != ".yaml") continue;
    ++specs;
    const auto result = run_gputune("search " + entry.path().string() +
                                    " --compile-only --arch sm_90 --no-cache --json");
    ASSERT_EQ(result.exit_code, 0) << entry.path() << "\n" << result.out << result.err;
    const nlohmann::json compiled = nlohmann::json::parse(result.out);
    EXPECT_GT(compiled["compiled"].get<int>(), 0) << entry.path();
    EXPECT_EQ(compiled["failed"], 0) << entry.path() << "\n" << compiled.dump(2);
  }
  EXPECT_GE(specs, 6u);
}

}  // namespace
}  // namespace gputune
