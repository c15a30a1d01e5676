// The reference kernel is compiled like a variant, from its own source and options, and a
// failure names it.
#include "compile/reference_kernel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kSpec = R"(kernel: {source: k.cu, name: scale}
problem: {n: 1000}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: in, type: float32, count: n}
  - {name: n, type: int32, value: n}
launch: {block: [B], grid: [ceil(n / B)]}
parameters: {B: [64, 128]}
check:
  reference:
    kernel:
      source: ref.cu
      name: scale_reference<float>
      launch: {grid: [ceil(n / 256)], block: [256]}
      defines: {FACTOR: 3}
)";

const char* const kReference = R"(
template <typename T>
__global__ void scale_reference(T* out, const T* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FACTOR * in[i];
}
)";

class ReferenceKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_reference_kernel_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "__global__ void scale(float* out, const float* in, int n) {}";
    std::ofstream(dir_ / "spec.yaml") << kSpec;
  }
  void TearDown() override { fs::remove_all(dir_); }
  Problem problem(const std::string& reference_source) {
    std::ofstream(dir_ / "ref.cu") << reference_source;
    return Problem(load_spec((dir_ / "spec.yaml").string()));
  }

  fs::path dir_;
};

TEST_F(ReferenceKernelTest, ItsRequestIsItsOwnSourceNameAndOptions) {
  const Problem p = problem(kReference);
  const CompileRequest request = reference_kernel_request(p, "sm_90");
  EXPECT_EQ(request.source, kReference);
  EXPECT_EQ(request.source_name, "ref.cu");
  EXPECT_EQ(request.kernel_name_expressions, std::vector<std::string>{"scale_reference<float>"});
  EXPECT_EQ(request.arch, "sm_90");
  ASSERT_FALSE(request.options.empty());
  EXPECT_EQ(request.options.front(), "-DFACTOR=3");
}

TEST_F(ReferenceKernelTest, CompilesWithNvrtc) {
  const Problem p = problem(kReference);
  auto compiler = make_nvrtc_compiler();
  const std::optional<ReferenceKernel> reference = compile_reference_kernel(p, *compiler, "sm_90");
  ASSERT_TRUE(reference);
  EXPECT_TRUE(reference->kernel.ok) << reference->kernel.log;
  ASSERT_EQ(reference->kernel.lowered_names.size(), 1u);
  EXPECT_FALSE(reference->kernel.image.empty());
  EXPECT_EQ(reference->launch.launch.grid[0], 4u);
}

TEST_F(ReferenceKernelTest, ACompileErrorIsASpecErrorNamingIt) {
  std::string broken = kReference;
  broken.replace(broken.find("FACTOR *"), 8, "FACTOR * undeclared *");
  const Problem p = problem(broken);
  auto compiler = make_nvrtc_compiler();
  try {
    compile_reference_kernel(p, *compiler, "sm_90");
    FAIL() << "a reference kernel that does not compile went unnoticed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    const std::string what = e.what();
    EXPECT_NE(what.find("spec.yaml:12:7: the reference kernel 'scale_reference<float>' (ref.cu) "
                        "does not compile for sm_90: "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("undeclared"), std::string::npos) << what;
  }
}

TEST_F(ReferenceKernelTest, NoneWithoutOne) {
  std::ofstream(dir_ / "plain.yaml")
      << std::string(kSpec).substr(0, std::string(kSpec).find("check:"));
  const Problem p(load_spec((dir_ / "plain.yaml").string()));
  auto compiler = make_nvrtc_compiler();
  EXPECT_FALSE(compile_reference_kernel(p, *compiler, "sm_90"));
}

}  // namespace
}  // namespace gputune
