#include "compile/output_checker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gputune/error.h"

namespace gputune {
namespace {

// Records what it is asked to compile; fails where the name expression says so.
class RecordingCompiler : public Compiler {
 public:
  explicit RecordingCompiler(std::string failing = "") : failing_(std::move(failing)) {}
  CompiledKernel compile(const CompileRequest& request) override {
    requests.push_back(request);
    CompiledKernel kernel;
    kernel.ok = request.kernel_name_expressions[0] != failing_;
    kernel.log = kernel.ok ? "" : "error: no double atomics here";
    if (kernel.ok) kernel.lowered_names = {"_Z13gputune_check"};
    return kernel;
  }
  std::vector<CompileRequest> requests;

 private:
  std::string failing_;
};

ArgumentSpec buffer(ScalarType type, bool output) {
  ArgumentSpec argument;
  argument.type = type;
  argument.output = output;
  return argument;
}

Spec spec_with_outputs() {
  Spec spec;
  spec.arguments = {buffer(ScalarType::kFloat32, true), buffer(ScalarType::kInt32, false),
                    buffer(ScalarType::kFloat64, true), buffer(ScalarType::kFloat32, true)};
  ArgumentSpec scalar = buffer(ScalarType::kInt64, false);
  scalar.is_buffer = false;
  spec.arguments.push_back(scalar);
  return spec;
}

TEST(OutputChecker, OneRequestPerOutputElementTypeForTheGivenArchitecture) {
  RecordingCompiler compiler;
  const OutputCheckers checkers = compile_output_checkers(spec_with_outputs(), compiler, "sm_80");
  ASSERT_EQ(compiler.requests.size(), 2u);
  EXPECT_EQ(checkers.size(), 2u);
  EXPECT_TRUE(checkers.count(ScalarType::kFloat32));
  EXPECT_TRUE(checkers.count(ScalarType::kFloat64));
  EXPECT_FALSE(checkers.count(ScalarType::kInt32));  // an input: never checked
  for (const CompileRequest& request : compiler.requests) EXPECT_EQ(request.arch, "sm_80");
  EXPECT_EQ(compiler.requests[0].kernel_name_expressions,
            std::vector<std::string>{"gputune_check<float>"});
  EXPECT_EQ(compiler.requests[1].kernel_name_expressions,
            std::vector<std::string>{"gputune_check<double>"});
}

TEST(OutputChecker, ACheckerThatDoesNotCompileIsAnErrorNamingIt) {
  RecordingCompiler compiler("gputune_check<double>");
  try {
    compile_output_checkers(spec_with_outputs(), compiler, "sm_90");
    FAIL() << "a failed checker went unnoticed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNvrtc);
    const std::string what = e.what();
    EXPECT_NE(what.find("gputune_check<double>"), std::string::npos) << what;
    EXPECT_NE(what.find("no double atomics"), std::string::npos) << what;
  }
}

TEST(OutputChecker, CompilesWithNvrtcForEveryElementType) {
  auto compiler = make_nvrtc_compiler();
  for (ScalarType type : {ScalarType::kInt8, ScalarType::kUint16, ScalarType::kInt32,
                          ScalarType::kUint64, ScalarType::kFloat32, ScalarType::kFloat64}) {
    const CompiledKernel kernel = compiler->compile(output_checker_request(type, "sm_90"));
    EXPECT_TRUE(kernel.ok) << output_checker_name(type) << ": " << kernel.log;
    EXPECT_EQ(kernel.lowered_names.size(), 1u);
    EXPECT_FALSE(kernel.image.empty());
  }
}

}  // namespace
}  // namespace gputune
