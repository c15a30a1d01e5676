// A spec's arguments against the kernel's parameters, from the command line: a left-out
// argument is a spec error (exit 65) with the spec's place before anything compiles; a type that
// differs is a warning and the run goes on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/add_t1.h"
#include "support/run_gputune.h"
#include "support/text.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

using testing::contains;

class SignatureCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_signature_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu")
        << "extern \"C\" __global__ void k(float* out, const float* x, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = 2.0f * x[i];\n}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string spec(const std::string& arguments) const {
    std::ofstream(dir_ / "spec.yaml") << "kernel: {source: k.cu, name: k}\n"
                                         "problem: {n: 1024}\n"
                                         "arguments:\n" +
                                             arguments +
                                             "launch: {block: [B], grid: [ceil(n / B)]}\n"
                                             "parameters: {B: [64, 128]}\n";
    return (dir_ / "spec.yaml").string();
  }

  fs::path dir_;
};

TEST_F(SignatureCli, ALeftOutArgumentIsASpecErrorBeforeAnythingCompiles) {
  const CommandResult r = run_gputune("search " +
                                      spec("  - {name: out, type: float32, count: n, output: "
                                           "true}\n"
                                           "  - {name: n, type: int32, value: n}\n") +
                                      " --compile-only --arch sm_90 -q");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, "spec.yaml:")) << r.err;
  EXPECT_TRUE(contains(r.err, "takes 3 parameters (float *out, const float *x, int n)")) << r.err;
  EXPECT_FALSE(contains(r.out, "compiled")) << r.out;
}

TEST_F(SignatureCli, ATypeThatDiffersIsAWarningAndTheRunGoesOnUnlessStrict) {
  const CommandResult r = run_gputune("search " +
                                      spec("  - {name: out, type: float32, count: n, output: "
                                           "true}\n"
                                           "  - {name: x, type: float32, count: n}\n"
                                           "  - {name: n, type: float32, value: n}\n") +
                                      " --compile-only --arch sm_90 -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "spec.yaml:6:5: argument 'n' is float32")) << r.err;
  EXPECT_TRUE(contains(r.out, "2 variants compiled")) << r.out;
  const CommandResult strict = run_gputune("search " + (dir_ / "spec.yaml").string() +
                                           " --compile-only --arch sm_90 -q "
                                           "--strict");
  EXPECT_EQ(strict.exit_code, 65) << strict.err;
  EXPECT_TRUE(contains(strict.err, "argument 'n' is float32")) << strict.err;
  EXPECT_TRUE(contains(strict.err, "--strict")) << strict.err;
}

TEST_F(SignatureCli, AT1FileWithAnArgumentTooFewIsASpecError) {
  testing::write_add_t1(dir_);
  std::ofstream(dir_ / "add.cu")
      << "extern \"C\" __global__ void add(float* out, const float* x, float* y, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = x[i] + y[i];\n}\n";
  const CommandResult r =
      run_gputune("search " + (dir_ / "add.json").string() + " --compile-only --arch sm_90 -q");
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(contains(r.err, "add.json:")) << r.err;
  EXPECT_TRUE(contains(r.err, "passes 3 arguments (out, x, n)")) << r.err;
}

}  // namespace
}  // namespace gputune
