// Constant arguments: a __constant__ symbol filled like an input instead of a kernel parameter.
// Parsed and checked (spec), left out of launches (space), compiled into a module that holds
// the symbol (NVRTC, cubin_symbols) and bound within its size (constant_binding).
#include <gtest/gtest.h>

#include <string>

#include "compile/compiler.h"
#include "compile/cubin_symbols.h"
#include "gputune/error.h"
#include "run/constant_binding.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/cuda_source.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

// tests/gpu/kernels/conv_constant.cu declares `__constant__ float filter[FW * FW]`, FW = 5.
std::string spec_text(const std::string& filter_line, const std::string& launch = "") {
  return R"(kernel: {source: kernels/conv_constant.cu, name: conv2d}
problem: {w: 64, h: 32, fw: 5}
arguments:
  - {name: out, type: float32, count: w * h, output: true}
  - {name: in, type: float32, count: (w + fw - 1) * (h + fw - 1)}
)" + filter_line +
         R"(
  - {name: w, type: int32, value: w}
  - {name: h, type: int32, value: h}
)" + (launch.empty() ? "launch: {block: [BX, 4], grid: [ceil(w / BX), ceil(h / 4)]}\n" : launch) +
         "parameters: {BX: [16, 32]}\n";
}

Spec parse(const std::string& text) {
  return parse_spec(text, test::source_dir() + "/tests/gpu/constant.yaml");
}

std::string spec_error(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the spec was accepted";
  return "";
}

const char kFilter[] =
    "  - {name: filter, type: float32, count: fw * fw, constant: true, fill: random, seed: 4}";

TEST(ConstantSymbols, FindsEachDeclaratorOfEveryConstantDeclaration) {
  const std::string source = R"(
__constant__ float filter[17 * 17];
static __constant__ int table[4] = {1, 2, 3, 4}, bias = 2;
float __constant__ scale;
__device__ float not_constant[3];
int my__constant__thing;
)";
  EXPECT_EQ(constant_symbols(source),
            (std::vector<std::string>{"filter", "table", "bias", "scale"}));
}

TEST(ConstantArgument, IsParsedWithItsSymbolAndFill) {
  const Spec spec = parse(spec_text(
      "  - {name: weights, type: float32, count: fw * fw, constant: true, symbol: filter,\n"
      "     fill: random, seed: 9}"));
  const ArgumentSpec& weights = spec.arguments[2];
  EXPECT_TRUE(weights.constant);
  EXPECT_TRUE(weights.is_buffer);
  EXPECT_EQ(weights.constant_symbol(), "filter");
  EXPECT_EQ(weights.seed, 9u);
  EXPECT_EQ(parse(spec_text(kFilter)).arguments[2].constant_symbol(), "filter");
}

TEST(ConstantArgument, AMissingSymbolNamesTheSymbolAndTheKernelFile) {
  const std::string message = spec_error(
      spec_text("  - {name: filtr, type: float32, count: fw * fw, constant: true, fill: random}"));
  EXPECT_NE(message.find("constant.yaml:6:"), std::string::npos) << message;
  EXPECT_NE(message.find("no __constant__ variable 'filtr'"), std::string::npos) << message;
  EXPECT_NE(message.find("conv_constant.cu"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'filter'"), std::string::npos) << message;
}

TEST(ConstantArgument, CannotBeAnOutputScratchOrAScalar) {
  EXPECT_NE(spec_error(spec_text("  - {name: filter, type: float32, count: 25, constant: true, "
                                 "output: true}"))
                .find("kernels cannot write __constant__ memory"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_text("  - {name: filter, type: float32, count: 25, constant: true, "
                                 "scratch: true}"))
                .find("constant and scratch"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_text("  - {name: filter, type: float32, value: 1, constant: true}"))
                .find("is a scalar and cannot be constant"),
            std::string::npos);
  EXPECT_NE(spec_error(spec_text("  - {name: filter, type: float32, count: 25, symbol: filter}"))
                .find("has a symbol but is not constant"),
            std::string::npos);
}

TEST(ConstantArgument, IsPassedToNoLaunch) {
  const Problem single(parse(spec_text(kFilter)));
  EXPECT_EQ(single.variant(0).launches.at(0).arguments, (std::vector<size_t>{0, 1, 3, 4}));
  // Named in a multi-launch spec's arguments, it is still left out of the parameters.
  const Problem multi(parse(spec_text(kFilter, R"(launches:
  - {kernel: conv2d, arguments: [out, in, filter, w, h], block: [BX, 4], grid: [2, 8]}
  - {kernel: conv2d, arguments: [out, in, w, h], block: [BX, 4], grid: [2, 8]}
)")));
  for (const Launch& launch : multi.variant(1).launches) {
    EXPECT_EQ(launch.arguments, (std::vector<size_t>{0, 1, 3, 4}));
  }
  // Its buffer is still a buffer of the problem: the runner fills it like an input.
  ASSERT_EQ(single.buffers().size(), 3u);
  EXPECT_EQ(single.buffers()[2].count, 25u);
}

TEST(ConstantArgument, TheCompiledModuleHoldsTheSymbolAndBindsWhatFits) {
  const Problem problem(parse(spec_text(kFilter)));
  const Variant variant = problem.variant(problem.baseline_index());
  const CompiledKernel kernel =
      make_nvrtc_compiler()->compile(compile_request(problem, variant, "sm_80"));
  ASSERT_TRUE(kernel.ok) << kernel.log;
  const int64_t symbol_bytes = cubin_symbol_bytes(kernel.image, "filter");
  EXPECT_EQ(symbol_bytes, 100);
  EXPECT_EQ(cubin_symbol_bytes(kernel.image, "filtr"), -1);
  EXPECT_EQ(cubin_symbol_bytes("not an ELF image", "filter"), -1);

  EXPECT_EQ(constant_binding_error("filter", "filter", 100, symbol_bytes, "conv_constant.cu"), "");
  const std::string too_large =
      constant_binding_error("filter", "filter", 104, symbol_bytes, "conv_constant.cu");
  EXPECT_NE(too_large.find("has 104 bytes"), std::string::npos) << too_large;
  EXPECT_NE(too_large.find("(100 bytes)"), std::string::npos) << too_large;
  const std::string missing = constant_binding_error("filter", "filter", 100, -1, "k.cu");
  EXPECT_NE(missing.find("no __constant__ symbol 'filter'"), std::string::npos) << missing;
  EXPECT_NE(missing.find("k.cu"), std::string::npos) << missing;
}

}  // namespace
}  // namespace gputune
