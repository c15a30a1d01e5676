// A reference kernel in a spec computes the expected outputs instead of the baseline: a kernel
// whose baseline is wrong is still checked right, in the runner and through a whole search.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "compile/output_checker.h"
#include "compile/reference_kernel.h"
#include "gputune/error.h"
#include "process/gpu_list.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string spec_path() { return test::source_dir() + "/tests/gpu/reference_check.yaml"; }

class ReferenceKernelCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = list_gpus();
    if (gpus_.empty()) GTEST_SKIP() << "no GPU";
    compiler_ = make_nvrtc_compiler();
    timing_.warmup_ms = 2;
    timing_.min_samples = 3;
    timing_.max_samples = 10;
    timing_.max_seconds = 0.1;
  }

  std::unique_ptr<Problem> problem(const std::string& reference_name = "axpy_reference") {
    std::string text = Problem(load_spec(spec_path())).spec().text;
    const std::string from = "name: axpy_reference";
    text.replace(text.find(from), from.size(), "name: " + reference_name);
    return std::make_unique<Problem>(parse_spec(text, spec_path()));
  }

  std::unique_ptr<Runner> runner(const Problem& problem) {
    const std::string arch = gpus_[0].arch();
    return make_gpu_runner(problem, 0, timing_,
                           compile_output_checkers(problem.spec(), *compiler_, arch), nullptr,
                           compile_input_fillers(problem.spec(), *compiler_, arch),
                           compile_reference_kernel(problem, *compiler_, arch));
  }

  Candidate candidate(const Problem& problem, int64_t block, int64_t bug) {
    std::vector<size_t> digits;
    for (const Dimension& dimension : problem.space().dimensions()) {
      const Value value(dimension.name == "B" ? block : bug);
      size_t digit = 0;
      while (digit < dimension.values.size() && !(dimension.values[digit] == value)) ++digit;
      digits.push_back(digit);
    }
    Candidate c;
    c.variant = problem.variant(problem.space().encode(digits));
    c.kernel = compiler_->compile(compile_request(problem, c.variant, gpus_[0].arch()));
    EXPECT_TRUE(c.kernel.ok) << c.kernel.log;
    return c;
  }

  std::vector<DeviceInfo> gpus_;
  std::unique_ptr<Compiler> compiler_;
  TimingOptions timing_;
};

TEST_F(ReferenceKernelCheckTest, VariantsAreCheckedAgainstTheReferenceNotTheWrongBaseline) {
  auto p = problem();
  auto r = runner(*p);
  const Measurement baseline = r->set_reference(candidate(*p, 64, 1));
  EXPECT_EQ(baseline.status, Status::kWrongAnswer) << baseline.message;
  // n / 2 of 100003.
  EXPECT_NE(baseline.message.find("first at index 50001"), std::string::npos) << baseline.message;

  const auto results = r->run(
      {candidate(*p, 256, 0), candidate(*p, 64, 0), candidate(*p, 256, 2), candidate(*p, 256, 1)});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, Status::kOk) << results[0].message;
  EXPECT_FALSE(results[0].samples_ms.empty());
  EXPECT_EQ(results[1].status, Status::kOk) << results[1].message;
  EXPECT_EQ(results[2].status, Status::kWrongAnswer) << results[2].message;
  EXPECT_NE(results[2].message.find("first at index 33334"), std::string::npos)
      << results[2].message;
  EXPECT_EQ(results[3].status, Status::kWrongAnswer) << results[3].message;
}

TEST_F(ReferenceKernelCheckTest, AReferenceKernelThatLeavesOutputsUnwrittenIsAnErrorNamingIt) {
  auto p = problem("axpy_reference_half");
  auto r = runner(*p);
  try {
    r->set_reference(candidate(*p, 64, 0));
    FAIL() << "a reference kernel that writes half its output was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("the reference kernel 'axpy_reference_half' "
                           "(reference_check_reference.cu) left 50002 elements of 'out' NaN"),
              std::string::npos)
        << message;
  }
}

TEST_F(ReferenceKernelCheckTest, ASearchStoresTheWrongBaselineAndFindsTheRightVariants) {
  const fs::path db =
      fs::temp_directory_path() / ("gputune_reference_kernel_" + std::to_string(getpid()) + ".db");
  fs::remove(db);
  const testing::CommandResult run = testing::run_gputune(
      "search " + spec_path() + " --json --quiet --max-seconds 0.1 --db " + db.string());
  fs::remove(db);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  const nlohmann::json& counts = report["status_counts"];
  EXPECT_EQ(counts.value("ok", 0), 2) << counts.dump();
  EXPECT_EQ(counts.value("wrong_answer", 0), 4) << counts.dump();
  EXPECT_EQ(report["baseline"]["status"], "wrong_answer") << report["baseline"].dump();
  for (const auto& row : report["results"]) {
    if (row["status"] == "ok") EXPECT_EQ(row["config"]["BUG"], 0) << row.dump();
  }
}

}  // namespace
}  // namespace gputune
