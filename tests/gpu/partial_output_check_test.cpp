// Kernels that write only part of an output, checked as they are (no wrapper launch): with a
// check region, with an initialised output, and under check: none.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "compile/output_checker.h"
#include "gputune/error.h"
#include "process/gpu_list.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

// The stencil's spec; `check_lines` end it (a region, or nothing) and `x_new_extra` goes into
// x_new's argument (e.g. ", fill: zeros").
std::string stencil_spec(const std::string& x_new_extra, const std::string& check_lines) {
  return "kernel: {source: kernels/partial_outputs.cu, name: stencil5}\n"
         "problem: {nx: 1000, ny: 333}\n"
         "arguments:\n"
         "  - {name: x_new, type: float32, count: nx*ny, output: true" +
         x_new_extra +
         "}\n"
         "  - {name: x_old, type: float32, count: nx*ny, fill: random, seed: 3, range: [-1, 1]}\n"
         "  - {name: nx, type: int32, value: nx}\n"
         "  - {name: ny, type: int32, value: ny}\n"
         "launch: {block: [BX, 8], grid: [ceil(nx / BX), ceil(ny / 8)]}\n"
         "parameters: {BX: [16, 64], BUG: [0, 1]}\n"
         "baseline: {BX: 16, BUG: 0}\n" +
         check_lines;
}

const char kRegion[] =
    "check:\n"
    "  region:\n"
    "    x_new: {shape: [ny, nx], begin: [1, 1], end: [ny - 1, nx - 1]}\n";

const char kSumSpec[] = R"(
kernel: {source: kernels/partial_outputs.cu}
problem: {n: 1000003, num_blocks: 96, chunk: ceil(n / num_blocks)}
arguments:
  - {name: partial, type: float32, count: n, output: true}
  - {name: total, type: float32, count: 1, output: true}
  - {name: in, type: float32, count: n, fill: random, seed: 5, range: [0, 1]}
  - {name: n, type: int32, value: n}
  - {name: chunk, type: int32, value: chunk}
  - {name: num_blocks, type: int32, value: num_blocks}
launches:
  - {kernel: partial_sums, arguments: [partial, in, n, chunk], block: [THREADS], grid: [num_blocks]}
  - {kernel: final_sum, arguments: [total, partial, num_blocks], block: [THREADS], grid: [1]}
parameters: {THREADS: [64, 128, 256]}
check:
  rtol: 1e-4
  atol: 1e-3
  region: {partial: {begin: 0, end: num_blocks}}
)";

class PartialOutputCheckTest : public ::testing::Test {
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

  std::unique_ptr<Problem> problem(const std::string& text) {
    return std::make_unique<Problem>(
        parse_spec(text, test::source_dir() + "/tests/gpu/partial_outputs.yaml"));
  }

  std::unique_ptr<Runner> runner(const Problem& problem) {
    return make_gpu_runner(problem, 0, timing_,
                           compile_output_checkers(problem.spec(), *compiler_, gpus_[0].arch()));
  }

  // The candidate whose parameters have these values (every dimension named).
  Candidate candidate(const Problem& problem, const std::map<std::string, int64_t>& values) {
    std::vector<size_t> digits;
    for (const Dimension& dimension : problem.space().dimensions()) {
      const Value value(values.at(dimension.name));
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

TEST_F(PartialOutputCheckTest, AStencilThatWritesItsInteriorIsRefusedWithoutARegion) {
  auto p = problem(stencil_spec("", ""));
  auto r = runner(*p);
  try {
    r->set_reference(candidate(*p, {{"BX", 16}, {"BUG", 0}}));
    FAIL() << "a baseline that leaves elements unwritten was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    // The border of a 333 x 1000 array: 2 * 1000 + 2 * 331 elements.
    EXPECT_NE(message.find("left 2662 elements of 'x_new' NaN"), std::string::npos) << message;
    EXPECT_NE(message.find("limit the check to a region"), std::string::npos) << message;
  }
}

TEST_F(PartialOutputCheckTest, AStencilIsCheckedOnItsInterior) {
  auto p = problem(stencil_spec("", kRegion));
  auto r = runner(*p);
  const Measurement baseline = r->set_reference(candidate(*p, {{"BX", 16}, {"BUG", 0}}));
  ASSERT_EQ(baseline.status, Status::kOk) << baseline.message;
  const auto results =
      r->run({candidate(*p, {{"BX", 64}, {"BUG", 0}}), candidate(*p, {{"BX", 64}, {"BUG", 1}})});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, Status::kOk) << results[0].message;
  EXPECT_FALSE(results[0].samples_ms.empty());
  EXPECT_EQ(results[1].status, Status::kWrongAnswer) << results[1].message;
  EXPECT_NE(results[1].message.find("1 of 330338 checked elements differ; first at [166, 500]"),
            std::string::npos)
      << results[1].message;
}

TEST_F(PartialOutputCheckTest, AnInitialisedOutputKeepsItsBorder) {
  auto p = problem(stencil_spec(", fill: constant, fill_value: 2", ""));
  auto r = runner(*p);
  const Measurement baseline = r->set_reference(candidate(*p, {{"BX", 16}, {"BUG", 0}}));
  ASSERT_EQ(baseline.status, Status::kOk) << baseline.message;
  const auto results =
      r->run({candidate(*p, {{"BX", 64}, {"BUG", 0}}), candidate(*p, {{"BX", 16}, {"BUG", 1}})});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, Status::kOk) << results[0].message;
  EXPECT_EQ(results[1].status, Status::kWrongAnswer) << results[1].message;
  EXPECT_NE(results[1].message.find("1 of 333000 elements differ"), std::string::npos)
      << results[1].message;
}

TEST_F(PartialOutputCheckTest, CheckNoneTimesEvenAWrongVariant) {
  auto p = problem(stencil_spec("", "check: none\n"));
  auto r = runner(*p);
  const Measurement baseline = r->set_reference(candidate(*p, {{"BX", 16}, {"BUG", 0}}));
  ASSERT_EQ(baseline.status, Status::kOk) << baseline.message;
  const auto results = r->run({candidate(*p, {{"BX", 64}, {"BUG", 1}})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::kOk) << results[0].message;
  EXPECT_FALSE(results[0].samples_ms.empty());
}

TEST_F(PartialOutputCheckTest, ATwoStageSumIsCheckedOnItsPartialSums) {
  auto p = problem(kSumSpec);
  auto r = runner(*p);
  const Measurement baseline = r->set_reference(candidate(*p, {{"THREADS", 64}}));
  ASSERT_EQ(baseline.status, Status::kOk) << baseline.message;
  const auto results =
      r->run({candidate(*p, {{"THREADS", 128}}), candidate(*p, {{"THREADS", 256}})});
  ASSERT_EQ(results.size(), 2u);
  for (const Measurement& m : results) {
    EXPECT_EQ(m.status, Status::kOk) << m.config << ": " << m.message;
    EXPECT_FALSE(m.samples_ms.empty()) << m.config;
  }
}

}  // namespace
}  // namespace gputune
