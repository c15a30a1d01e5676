// The kernel that fills inputs on the GPU: which arguments it fills, that it compiles for every
// element type, and that its generator is the host's (the GPU test compares their bytes).
#include "compile/input_filler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gputune/error.h"

namespace gputune {
namespace {

class RecordingCompiler : public Compiler {
 public:
  CompiledKernel compile(const CompileRequest& request) override {
    requests.push_back(request);
    CompiledKernel kernel;
    kernel.ok = request.kernel_name_expressions[0] != failing;
    kernel.log = kernel.ok ? "" : "error: scripted";
    if (kernel.ok) kernel.lowered_names = {"_Z12gputune_fill"};
    return kernel;
  }
  std::vector<CompileRequest> requests;
  std::string failing;
};

ArgumentSpec buffer(const std::string& name, ScalarType type, Fill fill) {
  ArgumentSpec argument;
  argument.name = name;
  argument.type = type;
  argument.fill = fill;
  return argument;
}

TEST(InputFiller, FillsGeneratedBuffersButNotDataConstantsScratchOrPoisonedOutputs) {
  EXPECT_TRUE(filled_on_device(buffer("in", ScalarType::kFloat32, Fill::kRandom)));
  EXPECT_TRUE(filled_on_device(buffer("in", ScalarType::kInt32, Fill::kIota)));
  EXPECT_TRUE(filled_on_device(buffer("in", ScalarType::kInt32, Fill::kZeros)));
  EXPECT_TRUE(filled_on_device(buffer("in", ScalarType::kInt32, Fill::kConstant)));
  EXPECT_FALSE(filled_on_device(buffer("in", ScalarType::kFloat32, Fill::kData)));
  ArgumentSpec constant = buffer("poly", ScalarType::kFloat32, Fill::kRandom);
  constant.constant = true;
  EXPECT_FALSE(filled_on_device(constant)) << "copied into each module's symbol from the host";
  ArgumentSpec scratch = buffer("tmp", ScalarType::kFloat32, Fill::kRandom);
  scratch.scratch = true;
  EXPECT_FALSE(filled_on_device(scratch));
  ArgumentSpec output = buffer("out", ScalarType::kFloat32, Fill::kRandom);
  output.output = true;
  EXPECT_FALSE(filled_on_device(output)) << "poisoned, not filled";
  output.initialised = true;
  EXPECT_TRUE(filled_on_device(output));
  ArgumentSpec scalar = buffer("n", ScalarType::kInt32, Fill::kRandom);
  scalar.is_buffer = false;
  EXPECT_FALSE(filled_on_device(scalar));
}

TEST(InputFiller, OneRequestPerFilledElementType) {
  Spec spec;
  spec.arguments = {buffer("a", ScalarType::kFloat32, Fill::kRandom),
                    buffer("b", ScalarType::kFloat32, Fill::kIota),
                    buffer("c", ScalarType::kInt64, Fill::kData),
                    buffer("d", ScalarType::kUint8, Fill::kConstant)};
  RecordingCompiler compiler;
  const InputFillers fillers = compile_input_fillers(spec, compiler, "sm_90");
  ASSERT_EQ(compiler.requests.size(), 2u);
  EXPECT_EQ(fillers.size(), 2u);
  EXPECT_TRUE(fillers.count(ScalarType::kFloat32));
  EXPECT_TRUE(fillers.count(ScalarType::kUint8));
  EXPECT_EQ(compiler.requests[0].arch, "sm_90");
  EXPECT_EQ(compiler.requests[0].kernel_name_expressions,
            std::vector<std::string>{"gputune_fill<float>"});
  EXPECT_EQ(compiler.requests[1].kernel_name_expressions,
            std::vector<std::string>{"gputune_fill<unsigned char>"});
}

TEST(InputFiller, AFillerThatDoesNotCompileIsAnErrorNamingIt) {
  Spec spec;
  spec.arguments = {buffer("a", ScalarType::kFloat64, Fill::kRandom)};
  RecordingCompiler compiler;
  compiler.failing = "gputune_fill<double>";
  try {
    compile_input_fillers(spec, compiler, "sm_80");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNvrtc);
    EXPECT_NE(std::string(e.what()).find("gputune_fill<double>"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sm_80"), std::string::npos) << e.what();
  }
}

// The generator is run/parallel_fill's SplitMix64 and host_fill's arithmetic, rounded as the
// host rounds: no contraction of low + span * u into one FMA.
TEST(InputFiller, UsesTheHostGeneratorsConstantsAndRounding) {
  const std::string source = input_filler_request(ScalarType::kFloat32, "sm_90").source;
  for (const char* constant :
       {"0x9E3779B97F4A7C15ull", "0xBF58476D1CE4E5B9ull", "0x94D049BB133111EBull", "(index + 1)",
        ">> 11", "0x1.0p-53", "__dadd_rn(low, __dmul_rn(span, unit))", "floor(value)"}) {
    EXPECT_NE(source.find(constant), std::string::npos) << constant;
  }
}

TEST(InputFiller, CompilesWithNvrtcForEveryElementType) {
  auto compiler = make_nvrtc_compiler();
  for (ScalarType type :
       {ScalarType::kInt8, ScalarType::kInt16, ScalarType::kInt32, ScalarType::kInt64,
        ScalarType::kUint8, ScalarType::kUint16, ScalarType::kUint32, ScalarType::kUint64,
        ScalarType::kFloat32, ScalarType::kFloat64}) {
    const CompiledKernel kernel = compiler->compile(input_filler_request(type, "sm_80"));
    EXPECT_TRUE(kernel.ok) << input_filler_name(type) << ": " << kernel.log;
    EXPECT_EQ(kernel.lowered_names.size(), 1u) << input_filler_name(type);
    EXPECT_FALSE(kernel.image.empty()) << input_filler_name(type);
  }
}

}  // namespace
}  // namespace gputune
