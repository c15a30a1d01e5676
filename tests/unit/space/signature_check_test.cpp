// A spec's arguments against the parameters of the kernel the engine parses: a count or kind
// that does not fit is an error at the spec's place, a type that differs a warning (an error
// for a buffer's element where the rules say its bytes must match).
#include "space/signature_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/engine.h"
#include "gputune/argument_mismatch.h"
#include "spec/spec_loader.h"
#include "support/add_t1.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class SignatureCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gputune_signature_" + std::to_string(getpid()) + "_" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The kernel file k.cu and a spec whose arguments (line 4 on) are `arguments`.
  Problem problem(const std::string& kernel, const std::string& arguments,
                  const std::string& name = "k", const std::string& parameters = "{X: [0, 1]}") {
    std::ofstream(dir_ / "k.cu") << kernel;
    const std::string text = "kernel: {source: k.cu, name: \"" + name +
                             "\"}\n"
                             "problem: {n: 256}\n"
                             "arguments:\n" +
                             arguments +
                             "launch: {block: [64], grid: [ceil(n / 64)]}\n"
                             "parameters: " +
                             parameters + "\n";
    return Problem(parse_spec(text, (dir_ / "spec.yaml").string()));
  }

  // The message of the ArgumentMismatch that checking throws, "" where it throws none.
  static std::string mismatch(const Problem& p, const SignatureRules& rules = {}) {
    try {
      check_signatures(p, rules);
    } catch (const ArgumentMismatch& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec);
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

const char kScale[] =
    "extern \"C\" __global__ void k(float* out, const float* x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = 2.0f * x[i];\n}\n";

const char kOut[] = "  - {name: out, type: float32, count: n, output: true}\n";
const char kX[] = "  - {name: x, type: float32, count: n}\n";
const char kN[] = "  - {name: n, type: int32, value: n}\n";

TEST_F(SignatureCheckTest, ArgumentsThatFitPassWithoutWarnings) {
  const Problem p = problem(kScale, std::string(kOut) + kX + kN);
  EXPECT_TRUE(check_signatures(p).empty());
}

// A search's start-up reads the kernel for the verdicts on the engine's knobs (Problem) and for
// this check: Clang parses it once for both.
TEST_F(SignatureCheckTest, TheCheckSharesTheParseOfTheEnginesKnobs) {
  const int before = engine::clang_parses();
  // A text no other test parses: the engine's memo lives as long as the process.
  const Problem p =
      problem(std::string(kScale) + "// " + dir_.string() + "\n", std::string(kOut) + kX + kN, "k",
              "{X: [0, 1]}\ntransforms: {launch_bounds: [0, 2]}");
  EXPECT_TRUE(check_signatures(p).empty());
  EXPECT_EQ(engine::clang_parses() - before, 1);
}

TEST_F(SignatureCheckTest, AMissingArgumentIsAnErrorThatNamesBothLists) {
  const std::string what = mismatch(problem(kScale, std::string(kOut) + kN));
  EXPECT_NE(what.find("spec.yaml:"), std::string::npos) << what;
  EXPECT_NE(what.find("takes 3 parameters (float *out, const float *x, int n)"), std::string::npos)
      << what;
  EXPECT_NE(what.find("passes 2 arguments (out, n)"), std::string::npos) << what;
  const std::string extra = mismatch(problem(kScale, std::string(kOut) + kX + kN +
                                                         "  - {name: m, type: int32, "
                                                         "value: n}\n"));
  EXPECT_NE(extra.find("passes 4 arguments"), std::string::npos) << extra;
}

TEST_F(SignatureCheckTest, AScalarForAPointerOrABufferForAScalarIsAnErrorAtTheArgument) {
  const std::string scalar = mismatch(
      problem(kScale, std::string(kOut) + "  - {name: x, type: float32, value: 1}\n" + kN));
  EXPECT_NE(scalar.find("spec.yaml:5:5: argument 'x' is a scalar"), std::string::npos) << scalar;
  EXPECT_NE(scalar.find("`const float *x`"), std::string::npos) << scalar;
  EXPECT_NE(scalar.find("k.cu:1:"), std::string::npos) << scalar;
  const std::string buffer =
      mismatch(problem(kScale, std::string(kOut) + kX + "  - {name: n, type: int32, count: n}\n"));
  EXPECT_NE(buffer.find("spec.yaml:6:5: argument 'n' is a buffer"), std::string::npos) << buffer;
  EXPECT_NE(buffer.find("expected a scalar (value:)"), std::string::npos) << buffer;
}

TEST_F(SignatureCheckTest, ATypeThatDiffersIsAWarningOrAnErrorWhereTheBytesMustMatch) {
  const Problem p = problem(kScale, std::string(kOut) +
                                        "  - {name: x, type: float64, count: n}\n"
                                        "  - {name: n, type: float32, value: n}\n");
  const std::vector<std::string> warnings = check_signatures(p);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("spec.yaml:5:5: argument 'x' holds float64"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("points to float32"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("argument 'n' is float32"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[1].find("is int32"), std::string::npos) << warnings[1];
  SignatureRules python;
  python.element_types_must_match = true;
  EXPECT_NE(mismatch(p, python).find("argument 'x' holds float64"), std::string::npos);
}

TEST_F(SignatureCheckTest, AnOutputPassedAsPointerToConstIsAWarning) {
  const Problem p = problem(kScale,
                            "  - {name: out, type: float32, count: n}\n"
                            "  - {name: x, type: float32, count: n, output: true}\n" +
                                std::string(kN));
  const std::vector<std::string> warnings = check_signatures(p);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("argument 'x' is an output"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("points to const"), std::string::npos) << warnings[0];
}

TEST_F(SignatureCheckTest, TheSignatureIsReadAtTheBaselinesMacrosAndATemplatesAsFarAsKnown) {
  const char kTyped[] =
      "template <typename T>\n"
      "__global__ void k(T* out, T scale, ELEMENT* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = scale * x[i];\n}\n";
  const std::string arguments = std::string(kOut) +
                                "  - {name: scale, type: float32, value: 2}\n"
                                "  - {name: x, type: float64, count: n}\n" +
                                kN;
  const Problem doubles = problem(kTyped, arguments, "k<float>", "{ELEMENT: [double, float]}");
  EXPECT_TRUE(check_signatures(doubles).empty());
  const Problem floats = problem(kTyped, arguments, "k<float>", "{ELEMENT: [float, double]}");
  const std::vector<std::string> warnings = check_signatures(floats);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("argument 'x' holds float64"), std::string::npos) << warnings[0];
  // The template parameter's pointer is still a pointer.
  const std::string kind =
      mismatch(problem(kTyped,
                       "  - {name: out, type: float32, value: 1}\n"
                       "  - {name: scale, type: float32, value: 2}\n"
                       "  - {name: x, type: float64, count: n, output: true}\n" +
                           std::string(kN),
                       "k<float>", "{ELEMENT: [double, float]}"));
  EXPECT_NE(kind.find("argument 'out' is a scalar"), std::string::npos) << kind;
}

TEST_F(SignatureCheckTest, AKernelWhoseDeclarationDoesNotParseIsOneWarningAndNothingChecked) {
  const Problem p =
      problem("extern \"C\" __global__ void k(undeclared_t* out, int n) {}\n", std::string(kOut));
  const std::vector<std::string> warnings = check_signatures(p);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("does not parse"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("undeclared_t"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("of k are not checked"), std::string::npos) << warnings[0];
}

TEST_F(SignatureCheckTest, AnErrorInTheBodyLeavesTheParametersChecked) {
  const std::string what = mismatch(
      problem("extern \"C\" __global__ void k(float* out, int n) { not_in_the_prelude(out); }\n",
              std::string(kOut)));
  EXPECT_NE(what.find("takes 2 parameters (float *out, int n)"), std::string::npos) << what;
}

TEST_F(SignatureCheckTest, AT1FilesArgumentsAreCheckedAtTheFilesPlaces) {
  const std::string path = testing::write_add_t1(dir_);
  std::ofstream(dir_ / "add.cu")
      << "extern \"C\" __global__ void add(float* out, const float* x, float* y, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = x[i] + y[i];\n}\n";
  const std::string what = mismatch(Problem(load_spec(path)));
  EXPECT_NE(what.find("add.json:"), std::string::npos) << what;
  EXPECT_NE(what.find("takes 4 parameters"), std::string::npos) << what;
  EXPECT_NE(what.find("passes 3 arguments (out, x, n)"), std::string::npos) << what;
}

}  // namespace
}  // namespace gputune
