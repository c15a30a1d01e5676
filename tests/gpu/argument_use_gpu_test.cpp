// Outputs that are really outputs (issue 30): after the baseline runs, an argument declared
// read-only that it changed and an output it left untouched are reported by name; a warning, an
// error with --strict, and part of the error where the untouched output stops the search.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "process/gpu_list.h"
#include "support/run_gputune.h"
#include "support/text.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

using testing::contains;

class ArgumentUseGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
    dir_ = fs::temp_directory_path() / ("gputune_argument_use_gpu_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    // Writes its output y and also clears its input x after reading it.
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* y, float* x, int n) {\n"
                                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "  if (i < n) { y[i] = x[i] + 1.0f; x[i] = 0.0f; }\n}\n";
    // Writes y only.
    std::ofstream(dir_ / "add.cu")
        << "extern \"C\" __global__ void k(float* y, const float* x, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) y[i] = x[i] + 1.0f;\n}\n";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string spec(const std::string& y, const std::string& x, const std::string& kernel = "k.cu") {
    std::ofstream(dir_ / "spec.yaml") << "kernel: {source: " + kernel +
                                             ", name: k}\n"
                                             "problem: {n: 4096}\n"
                                             "arguments:\n"
                                             "  - {name: y, type: float32, count: n" +
                                             y +
                                             "}\n"
                                             "  - {name: x, type: float32, count: n" +
                                             x +
                                             "}\n"
                                             "  - {name: n, type: int32, value: n}\n"
                                             "launch: {block: [B], grid: [ceil(n / B)]}\n"
                                             "parameters: {B: [64, 128]}\n";
    return "search " + (dir_ / "spec.yaml").string() + " --db " + (dir_ / "r.db").string() +
           " --strategy brute_force --fast -q --force ";
  }

  fs::path dir_;
};

TEST_F(ArgumentUseGpu, AnInputTheBaselineChangesIsAWarningAndAnErrorWithStrict) {
  const CommandResult warned = run_gputune(spec(", output: true", ""));
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_TRUE(contains(warned.err, "warning: the baseline")) << warned.err;
  EXPECT_TRUE(contains(warned.err, "changed 'x', declared read-only")) << warned.err;
  EXPECT_FALSE(contains(warned.err, "'y'")) << warned.err;
  const CommandResult strict = run_gputune(spec(", output: true", "") + "--strict");
  EXPECT_EQ(strict.exit_code, 65) << strict.err;
  EXPECT_TRUE(contains(strict.err, "changed 'x', declared read-only")) << strict.err;
}

// The kernel clears x after reading it: had the baseline's (and its timing runs') cleared x
// reached the other variant, that variant would compute y = 1 and be a wrong answer. The
// inputs the baseline changed are filled again before each variant's checked run.
TEST_F(ArgumentUseGpu, EveryVariantReadsTheInputsAsFilledThoughTheBaselineChangedThem) {
  const CommandResult r = run_gputune(spec(", output: true", "") + "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "filled again before each variant's checked run")) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["results"].size(), 2u) << r.out;
  for (const auto& row : report["results"]) EXPECT_EQ(row["status"], "ok") << row.dump();
}

// The spec marks the wrong argument as its output (as the file of issue 30 did): the baseline's
// untouched "output" stops the search, and the error says which argument it wrote instead.
TEST_F(ArgumentUseGpu, TheWrongOutputIsNamedWithTheArgumentWrittenInstead) {
  const CommandResult r = run_gputune(spec("", ", output: true", "add.cu"));
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, "changed 'y', declared read-only")) << r.err;
  EXPECT_TRUE(contains(r.err, "left 'x', declared an output, untouched")) << r.err;
}

}  // namespace
}  // namespace gputune
