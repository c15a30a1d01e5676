// A reference kernel in a spec (check: {reference: {kernel: ...}}): how the loader reads it,
// what check_spec refuses, and its launch at the problem values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "gputune/error.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kKernel = R"(
__constant__ float weights[4];
__global__ void scale(float* out, const float* in, int n) {}
)";

const char* const kReference = R"(
template <typename T>
__global__ void scale_reference(T* out, const T* in, int n) {}
__global__ void other(float* out) {}
)";

// Line numbers matter: the tests replace whole lines and expect errors at them.
const std::vector<std::string> kBase = {
    /* 1 */ "kernel: {source: k.cu, name: scale}",
    /* 2 */ "problem: {n: 1000}",
    /* 3 */ "arguments:",
    /* 4 */ "  - {name: out, type: float32, count: n, output: true}",
    /* 5 */ "  - {name: in, type: float32, count: n}",
    /* 6 */ "  - {name: n, type: int32, value: n}",
    /* 7 */ "  - {name: weights, type: float32, count: 4, constant: true}",
    /* 8 */ "launch: {block: [B], grid: [ceil(n / B)]}",
    /* 9 */ "parameters: {B: [64, 128]}",
    /* 10 */ "check:",
    /* 11 */ "  reference:",
    /* 12 */ "    kernel:",
    /* 13 */ "      source: ref/ref.cu",
    /* 14 */ "      name: scale_reference<float>",
    /* 15 */ "      launch: {grid: [ceil(n / 256)], block: [256]}",
};

class ReferenceKernelSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_reference_kernel_spec_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_ / "ref");
    std::ofstream(dir_ / "k.cu") << kKernel;
    std::ofstream(dir_ / "ref" / "ref.cu") << kReference;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string text(const std::vector<std::pair<int, std::string>>& replace,
                          const std::vector<std::string>& extra = {}) {
    std::vector<std::string> lines = kBase;
    for (const auto& [line, content] : replace) lines.at(line - 1) = content;
    lines.insert(lines.end(), extra.begin(), extra.end());
    std::string out;
    for (const auto& line : lines) out += line + "\n";
    return out;
  }
  std::string path() const { return (dir_ / "spec.yaml").string(); }
  Spec parse(const std::string& spec_text, const Overrides& overrides = {}) {
    return parse_spec(spec_text, path(), overrides);
  }
  std::string error(const std::string& spec_text) {
    try {
      parse(spec_text);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << spec_text;
    return "";
  }

  fs::path dir_;
};

TEST_F(ReferenceKernelSpecTest, IsReadWithItsSourceNameLaunchAndEveryArgument) {
  const Spec spec = parse(text({}));
  ASSERT_TRUE(spec.reference_kernel);
  const ReferenceKernelSpec& reference = *spec.reference_kernel;
  EXPECT_EQ(reference.path, (dir_ / "ref" / "ref.cu").lexically_normal().string());
  EXPECT_EQ(reference.source, kReference);
  EXPECT_EQ(reference.launch.kernel_name.text, "scale_reference<float>");
  EXPECT_EQ(reference.launch.kernel_name.where.line, 14);
  EXPECT_EQ(reference.launch.arguments, (std::vector<size_t>{0, 1, 2, 3}));
  ASSERT_EQ(reference.launch.grid.size(), 1u);
  EXPECT_EQ(reference.launch.grid[0].text, "ceil(n / 256)");
  EXPECT_EQ(reference.name(), "reference kernel 'scale_reference<float>' (ref.cu)");
  EXPECT_TRUE(spec.check_outputs);
}

TEST_F(ReferenceKernelSpecTest, ProblemResolvesItsLaunchAtTheProblemValues) {
  const Problem problem(
      parse(text({{15, "      launch: {grid: [ceil(n / 256)], block: [256], shared_bytes: 4 * n}"}},
                 {"      defines: {N: n, HALF: n / 2}", "      options: [-ftz=true]"}),
            {{"n", "4096"}}));
  ASSERT_TRUE(problem.reference_launch());
  const ReferenceLaunch& launch = *problem.reference_launch();
  EXPECT_EQ(launch.launch.grid, (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(launch.launch.block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(launch.launch.dynamic_shared_bytes, 4u * 4096);
  // The constant is bound to the module's symbol, not passed.
  EXPECT_EQ(launch.launch.arguments, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(launch.kernel_name_expression, "scale_reference<float>");
  ASSERT_EQ(launch.compile_options.size(), 4u);
  EXPECT_EQ(launch.compile_options[0], "-DN=4096");
  EXPECT_EQ(launch.compile_options[1], "-DHALF=2048");
  EXPECT_EQ(launch.compile_options[2], "-ftz=true");
  EXPECT_EQ(launch.compile_options[3], "--include-path=" + (dir_ / "ref").string());
}

TEST_F(ReferenceKernelSpecTest, ArgumentsCanBeChosenByName) {
  const Spec spec = parse(text({}, {"      arguments: [out, in, n]"}));
  EXPECT_EQ(spec.reference_kernel->launch.arguments, (std::vector<size_t>{0, 1, 2}));
  const std::string unknown = error(text({}, {"      arguments: [out, inn]"}));
  EXPECT_NE(unknown.find("spec.yaml:16:24: reference kernel 'scale_reference<float>' passes "
                         "'inn', which is not an argument (did you mean 'in'?)"),
            std::string::npos)
      << unknown;
  const std::string no_output = error(text({}, {"      arguments: [in, n]"}));
  EXPECT_NE(no_output.find("is passed no output"), std::string::npos) << no_output;
}

TEST_F(ReferenceKernelSpecTest, AFunctionTheSourceLacksIsRefusedWithTheOnesItHas) {
  const std::string e = error(text({{14, "      name: scale_referense"}}));
  EXPECT_NE(e.find("spec.yaml:14:13: reference kernel 'scale_referense' is not a __global__ "
                   "function of "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("(did you mean 'scale_reference'?)"), std::string::npos) << e;
  EXPECT_NE(e.find("expected one of: scale_reference, other"), std::string::npos) << e;
}

TEST_F(ReferenceKernelSpecTest, ItsLaunchMayUseProblemValuesButNotParameters) {
  const std::string e = error(text({{15, "      launch: {grid: [ceil(n / B)], block: [256]}"}}));
  EXPECT_NE(e.find("spec.yaml:15"), std::string::npos) << e;
  EXPECT_NE(e.find("'B' is a parameter; reference kernel 'scale_reference<float>' launch grid[0] "
                   "may use problem values only"),
            std::string::npos)
      << e;
}

TEST_F(ReferenceKernelSpecTest, MissingPiecesAndUnknownKeysAreNamed) {
  const std::string no_source = error(text({{13, "      options: []"}}));
  EXPECT_NE(no_source.find("spec.yaml:13:7: the reference kernel has no 'source'"),
            std::string::npos)
      << no_source;
  const std::string no_launch = error(text({{15, "      options: []"}}));
  EXPECT_NE(no_launch.find("the reference kernel has no 'launch'; expected launch: {grid: "
                           "[...], block: [...]}"),
            std::string::npos)
      << no_launch;
  const std::string unknown = error(text({}, {"      lanch: {}"}));
  EXPECT_NE(unknown.find("unknown key 'lanch' in the reference kernel (did you mean 'launch'?)"),
            std::string::npos)
      << unknown;
  const std::string missing = error(text({{13, "      source: nowhere.cu"}}));
  EXPECT_NE(missing.find("spec.yaml:13:15: cannot read reference kernel source 'nowhere.cu'"),
            std::string::npos)
      << missing;
  const std::string no_grid = error(text({{15, "      launch: {block: [256]}"}}));
  EXPECT_NE(no_grid.find("reference kernel 'scale_reference<float>' launch has no 'grid'"),
            std::string::npos)
      << no_grid;
}

TEST_F(ReferenceKernelSpecTest, AReferenceFileForOneOutputSitsBesideIt) {
  // An output named like the key keeps its file spelling: `kernel` means the reference kernel
  // only with a map under it.
  const std::string e = error(text({}, {"    out: missing.npy"}));
  EXPECT_NE(e.find("reference of 'out': "), std::string::npos) << e;
}

}  // namespace
}  // namespace gputune
