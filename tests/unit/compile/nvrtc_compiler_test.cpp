#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compile/compiler.h"
#include "compile/cubin_symbols.h"
#include "gputune/error.h"

namespace gputune {
namespace {

CompileRequest request_for(const std::string& source, const std::string& name) {
  CompileRequest request;
  request.source = source;
  request.source_name = "test.cu";
  request.kernel_name_expressions = {name};
  request.arch = "sm_90";
  return request;
}

TEST(NvrtcCompiler, Version) {
  const std::string version = nvrtc_version();
  EXPECT_NE(version.find('.'), std::string::npos) << version;
}

TEST(NvrtcCompiler, CompilesExternCKernel) {
  auto compiler = make_nvrtc_compiler();
  const auto kernel =
      compiler->compile(request_for("extern \"C\" __global__ void add_one(float* a, int n) {\n"
                                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "  if (i < n) a[i] += 1.0f;\n"
                                    "}\n",
                                    "add_one"));
  ASSERT_TRUE(kernel.ok) << kernel.log;
  EXPECT_EQ(kernel.lowered_names, (std::vector<std::string>{"add_one"}));
  EXPECT_GT(kernel.registers, 0);
  EXPECT_EQ(kernel.spill_bytes, 0);
  EXPECT_FALSE(kernel.image.empty());
  EXPECT_GT(kernel.compile_ms, 0);
}

// Kernels written for nvcc include <math.h> (BAT's FFT); NVRTC has no such file, so the
// compiler gives its own (standard_headers.h), unless the kernel's folder has one.
TEST(NvrtcCompiler, StandardHeadersNvrtcLacksAreGivenUnlessTheKernelHasItsOwn) {
  auto compiler = make_nvrtc_compiler();
  const std::string source =
      "#include <math.h>\n#include <stdio.h>\n"
      "extern \"C\" __global__ void k(float* a) { a[0] = sqrtf(a[0]) * (float)M_PI; }\n";
  const auto kernel = compiler->compile(request_for(source, "k"));
  ASSERT_TRUE(kernel.ok) << kernel.log;

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gputune_math_h_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "math.h") << "#define M_PI 3\n#define OWN_MATH_H 1\n";
  CompileRequest own = request_for(
      "#include <math.h>\nextern \"C\" __global__ void k(int* a) { a[0] = OWN_MATH_H; }\n", "k");
  own.options = {"--include-path=" + dir.string()};
  const auto with_own = compiler->compile(own);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(with_own.ok) << with_own.log;
}

TEST(NvrtcCompiler, LowersTemplateNameExpressionAndReadsItsSharedMemory) {
  auto compiler = make_nvrtc_compiler();
  const auto kernel = compiler->compile(
      request_for("template <int N, int PAD> __global__ void tiled(float* a) {\n"
                  "  __shared__ float tile[N][N + PAD];\n"
                  "  tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * N + threadIdx.x];\n"
                  "  __syncthreads();\n"
                  "  a[threadIdx.y * N + threadIdx.x] = tile[threadIdx.x][threadIdx.y];\n"
                  "}\n"
                  "template __global__ void tiled<8, 1>(float*);\n",
                  "tiled<16, 1>"));
  ASSERT_TRUE(kernel.ok) << kernel.log;
  EXPECT_EQ(kernel.lowered_names, (std::vector<std::string>{"_Z5tiledILi16ELi1EEvPf"}));
  EXPECT_GT(kernel.registers, 0);
  EXPECT_EQ(kernel.shared_bytes, 16 * 17 * 4);  // this kernel's section, not tiled<8, 1>'s
}

// The cubin records what ptxas's report says: where NVRTC serves a cached cubin without the
// report, the compiler reads the cubin instead (nvrtc_compiler.cpp).
TEST(NvrtcCompiler, TheCubinRecordsTheRegistersThePtxasReportGives) {
  auto compiler = make_nvrtc_compiler();
  const std::string source =
      "template <int N, int UNROLL> __global__ void work(float* a, const float* b) {\n"
      "  __shared__ float tile[N];\n"
      "  float acc[UNROLL];\n"
      "#pragma unroll\n"
      "  for (int k = 0; k < UNROLL; ++k) acc[k] = b[threadIdx.x * UNROLL + k] * (k + 1);\n"
      "  tile[threadIdx.x % N] = acc[0];\n"
      "  __syncthreads();\n"
      "#pragma unroll\n"
      "  for (int k = 0; k < UNROLL; ++k) a[threadIdx.x * UNROLL + k] = acc[k] + tile[k % N];\n"
      "}\n";
  for (const char* name : {"work<32, 1>", "work<256, 16>", "work<64, 64>"}) {
    const auto kernel = compiler->compile(request_for(source, name));
    ASSERT_TRUE(kernel.ok) << kernel.log;
    ASSERT_NE(kernel.log.find("Used"), std::string::npos) << "no ptxas report: " << kernel.log;
    const std::string& symbol = kernel.lowered_names.at(0);
    EXPECT_EQ(cubin_registers(kernel.image, symbol), kernel.registers) << name;
  }
  EXPECT_EQ(cubin_registers("not an ELF image", "work"), -1);
}

TEST(NvrtcCompiler, SeveralKernelsInOneModuleReportTheirLargestResources) {
  auto compiler = make_nvrtc_compiler();
  auto request = request_for(
      "template <int N> __global__ void staged(float* a) {\n"
      "  __shared__ float s[N];\n"
      "  s[threadIdx.x] = a[threadIdx.x];\n"
      "  __syncthreads();\n"
      "  a[threadIdx.x] = s[N - 1 - threadIdx.x];\n"
      "}\n"
      "extern \"C\" __global__ void plain(float* a) { a[threadIdx.x] *= 2.0f; }\n"
      "extern \"C\" __global__ void unused(float* a) { __shared__ float big[4096];"
      " big[threadIdx.x] = 1; __syncthreads(); a[0] = big[7]; }\n",
      "plain");
  request.kernel_name_expressions = {"plain", "staged<256>"};
  const auto kernel = compiler->compile(request);
  ASSERT_TRUE(kernel.ok) << kernel.log;
  EXPECT_EQ(kernel.lowered_names, (std::vector<std::string>{"plain", "_Z6stagedILi256EEvPf"}));
  EXPECT_EQ(kernel.shared_bytes, 256 * 4);  // staged<256>'s; `unused` is not launched

  request.kernel_name_expressions = {"plain", "missing"};
  const auto broken = compiler->compile(request);
  EXPECT_FALSE(broken.ok);
  EXPECT_NE(broken.log.find("missing"), std::string::npos) << broken.log;
}

TEST(NvrtcCompiler, MacrosFromOptions) {
  auto compiler = make_nvrtc_compiler();
  auto request = request_for(
      "#ifndef TILE\n#error TILE is not defined\n#endif\n"
      "extern \"C\" __global__ void k(float* a) { __shared__ float s[TILE];"
      " s[threadIdx.x] = 1; __syncthreads(); a[threadIdx.x] = s[TILE - 1 - threadIdx.x]; }\n",
      "k");
  request.options = {"-DTILE=64"};
  const auto kernel = compiler->compile(request);
  ASSERT_TRUE(kernel.ok) << kernel.log;
  EXPECT_EQ(kernel.shared_bytes, 64 * 4);
}

TEST(NvrtcCompiler, SyntaxErrorIsNotOkAndKeepsTheLog) {
  auto compiler = make_nvrtc_compiler();
  const auto kernel = compiler->compile(
      request_for("extern \"C\" __global__ void broken(float* a) { a[0] = 1.0f +; }\n", "broken"));
  EXPECT_FALSE(kernel.ok);
  EXPECT_TRUE(kernel.image.empty());
  EXPECT_NE(kernel.log.find("test.cu"), std::string::npos) << kernel.log;
  EXPECT_NE(kernel.log.find("error"), std::string::npos) << kernel.log;
  EXPECT_GT(kernel.compile_ms, 0);
}

TEST(NvrtcCompiler, UnknownKernelNameIsNotOk) {
  auto compiler = make_nvrtc_compiler();
  const auto kernel = compiler->compile(
      request_for("extern \"C\" __global__ void present(float* a) { a[0] = 1.0f; }\n", "absent"));
  EXPECT_FALSE(kernel.ok);
  EXPECT_FALSE(kernel.log.empty());
}

TEST(NvrtcCompiler, ReportsSpillsUnderARegisterCap) {
  auto compiler = make_nvrtc_compiler();
  auto request = request_for(
      "extern \"C\" __global__ void heavy(float* a) {\n"
      "  float r[64];\n"
      "#pragma unroll\n"
      "  for (int i = 0; i < 64; ++i) r[i] = a[i * threadIdx.x];\n"
      "  float s = 0;\n"
      "  for (int j = 0; j < 64; ++j)\n"
      "#pragma unroll\n"
      "    for (int i = 0; i < 64; ++i) s += r[i] * r[(i + j) & 63];\n"
      "  a[threadIdx.x] = s;\n"
      "}\n",
      "heavy");
  request.options = {"--maxrregcount=32"};
  const auto kernel = compiler->compile(request);
  ASSERT_TRUE(kernel.ok) << kernel.log;
  EXPECT_LE(kernel.registers, 32);
  EXPECT_GT(kernel.spill_bytes, 0) << kernel.log;
}

TEST(NvrtcCompiler, InvalidOptionIsNotOk) {
  auto compiler = make_nvrtc_compiler();
  auto request = request_for("extern \"C\" __global__ void k(float* a) { a[0] = 1; }\n", "k");
  request.options = {"--no-such-option"};
  const auto kernel = compiler->compile(request);
  EXPECT_FALSE(kernel.ok);
  EXPECT_FALSE(kernel.log.empty());
}

}  // namespace
}  // namespace gputune
