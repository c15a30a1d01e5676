// kernel: {defines: ...}: problem values and expressions reach the kernel as macros.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compile/compiler.h"
#include "gputune/error.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Sizes come only from macros, as in kernels written for tuners that pass defines.
const char* const kKernel = R"(
#ifndef N
#error N is not defined
#endif
extern "C" __global__ void scale(float* out) {
  __shared__ float partial[BLOCKS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[blockIdx.x % BLOCKS] = 1.0f;
  __syncthreads();
  if (i < N) out[i] = partial[0] * TILE;
}
)";

class ProblemDefinesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_defines_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << kKernel;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path() const { return (dir_ / "spec.yaml").string(); }

  // Line 3 holds the defines; errors are expected there.
  Spec spec(const std::string& defines, const Overrides& overrides = {}) const {
    const std::string text =
        "kernel:\n"
        "  source: k.cu\n" +
        defines +
        "\n"
        "  name: scale\n"
        "problem: {n: 1000}\n"
        "arguments:\n"
        "  - {name: out, type: float32, count: n, output: true}\n"
        "launch: {block: [TILE], grid: [ceil(n / TILE)]}\n"
        "parameters:\n"
        "  TILE: [32, 128]\n";
    return parse_spec(text, path(), overrides);
  }

  std::string error(const std::string& defines) const {
    try {
      spec(defines);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error for " << defines;
    return "";
  }

  fs::path dir_;
};

const char* const kDefines =
    R"yaml(  defines: {N: n, BLOCKS: "ceil(n / TILE)", HALF: n / 8 / 100})yaml";

std::vector<std::string> macros(const Variant& v) {
  std::vector<std::string> out;
  for (const auto& option : v.compile_options) {
    if (option.rfind("-D", 0) == 0) out.push_back(option);
  }
  return out;
}

TEST_F(ProblemDefinesTest, EachDefineIsAMacroOfEveryVariantAfterTheParameters) {
  Problem problem(spec(kDefines));
  EXPECT_EQ(macros(problem.variant(0)),
            (std::vector<std::string>{"-DTILE=32", "-DN=1000", "-DBLOCKS=32", "-DHALF=1.25"}));
  EXPECT_EQ(macros(problem.variant(1)),
            (std::vector<std::string>{"-DTILE=128", "-DN=1000", "-DBLOCKS=8", "-DHALF=1.25"}));
}

TEST_F(ProblemDefinesTest, SetReachesTheMacros) {
  Problem problem(spec(kDefines, {{"n", "4096"}}));
  EXPECT_EQ(macros(problem.variant(1)),
            (std::vector<std::string>{"-DTILE=128", "-DN=4096", "-DBLOCKS=32", "-DHALF=5.12"}));
  Problem at_other_values(spec(kDefines), {{"n", 256}});
  EXPECT_EQ(macros(at_other_values.variant(0)),
            (std::vector<std::string>{"-DTILE=32", "-DN=256", "-DBLOCKS=8", "-DHALF=0.32"}));
}

TEST_F(ProblemDefinesTest, AKernelThatUsesTheMacrosCompiles) {
  Problem problem(spec(kDefines, {{"n", "2048"}}));
  auto compiler = make_nvrtc_compiler();
  for (uint64_t index : {0, 1}) {
    const CompiledKernel kernel =
        compiler->compile(compile_request(problem, problem.variant(index), "sm_90"));
    ASSERT_TRUE(kernel.ok) << kernel.log;
    const int blocks = index == 0 ? 64 : 16;  // ceil(2048 / TILE)
    EXPECT_EQ(kernel.shared_bytes, blocks * 4);
  }
}

TEST_F(ProblemDefinesTest, ErrorsNameWhereTheDefineWasWritten) {
  std::string message = error("  defines: {TILE: n}");
  EXPECT_EQ(message.rfind(path() + ":3:13: define 'TILE' has the name of a parameter, which "
                                   "already becomes -DTILE=<its value>; expected another macro "
                                   "name",
                          0),
            0u)
      << message;
  message = error("  defines: {N: \"n +\"}");
  EXPECT_EQ(message.rfind(path() + ":3:20: cannot parse define 'N'", 0), 0u) << message;
  message = error("  defines: {N: nn}");
  EXPECT_EQ(
      message.rfind(path() + ":3:16: undefined name 'nn' in define 'N' (did you mean 'n'?)", 0), 0u)
      << message;
  message = error("  defines: {2N: n}");
  EXPECT_NE(message.find(":3:13: define name '2N' is not an identifier"), std::string::npos)
      << message;
  message = error("  options: [-DN=3]\n  defines: {N: n}");
  EXPECT_NE(message.find(":4:13: define 'N' is also given as kernel option '-DN=3'"),
            std::string::npos)
      << message;
}

TEST_F(ProblemDefinesTest, ANonFiniteValueNamesTheConfig) {
  Problem problem(spec("  defines: {N: n / (TILE - 32)}"));
  try {
    problem.variant(0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(":3:16: define 'N' = n / (TILE - 32) is inf "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("for config TILE=32; expected a finite number"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(macros(problem.variant(1)),
            (std::vector<std::string>{"-DTILE=128", "-DN=10.416666666666666"}));
}

}  // namespace
}  // namespace gputune
