// A check function in the caller's process (SearchRequest::host_check, Python's
// tune(check=...)) judges each variant's outputs: the GPU runner keeps them instead of
// comparing, and a whole search stores what the function decides, the baseline included.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "gputune/session.h"
#include "process/gpu_list.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// out = 2.5 x + y for n = 100003; BUG 1 (the baseline) and BUG 2 get one element wrong.
std::string spec_path() { return test::source_dir() + "/tests/gpu/reference_check.yaml"; }

std::vector<float> floats(const HostArray& a) {
  std::vector<float> values(a.count());
  std::memcpy(values.data(), a.bytes->data(), a.bytes->size());
  return values;
}

// "" when out = 2.5 x + y everywhere, else the first wrong element.
std::string axpy_check(const HostCheckArrays& arrays) {
  std::map<std::string, std::vector<float>> by_name;
  for (const HostArray& a : arrays.inputs) by_name[a.name] = floats(a);
  const std::vector<float> out = floats(arrays.outputs.at(0));
  const std::vector<float>& x = by_name.at("x");
  const std::vector<float>& y = by_name.at("y");
  if (out.size() != x.size() || out.size() != y.size()) return "sizes differ";
  for (size_t i = 0; i < out.size(); ++i) {
    const float expected = 2.5f * x[i] + y[i];
    if (!(std::fabs(out[i] - expected) <= 1e-5f + 1e-5f * std::fabs(expected))) {
      return "out[" + std::to_string(i) + "] is " + std::to_string(out[i]);
    }
  }
  return "";
}

class HostCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  }
};

TEST_F(HostCheckTest, TheRunnerKeepsEachCheckedRunsOutputsAndComparesNothing) {
  Problem problem(load_spec(spec_path()));
  auto compiler = make_nvrtc_compiler();
  TimingOptions timing;
  timing.warmup_ms = 2;
  timing.min_samples = 3;
  timing.max_samples = 10;
  timing.max_seconds = 0.1;
  const std::string arch = list_gpus()[0].arch();
  auto runner = make_gpu_runner(problem, 0, timing, {}, nullptr, /*fillers=*/{}, std::nullopt,
                                /*keep_outputs=*/true);
  auto candidate = [&](uint64_t index) {
    Candidate c;
    c.variant = problem.variant(index);
    c.kernel = compiler->compile(compile_request(problem, c.variant, arch));
    EXPECT_TRUE(c.kernel.ok) << c.kernel.log;
    return c;
  };
  // Wrong (BUG 1), yet no error and no wrong answer: judging is the host check's.
  const Measurement baseline = runner->set_reference(candidate(problem.baseline_index()));
  EXPECT_EQ(baseline.status, Status::kOk) << baseline.message;
  auto outputs = runner->take_checked_outputs();
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].size(), 100003u * sizeof(float));
  EXPECT_TRUE(runner->take_checked_outputs().empty()) << "handed over once";
  for (uint64_t index = 0; index < problem.space().size(); ++index) {
    const auto results = runner->run({candidate(index)});
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::kOk) << results[0].message;
    EXPECT_FALSE(results[0].samples_ms.empty());
    EXPECT_EQ(runner->take_checked_outputs().size(), 1u);
  }
}

TEST_F(HostCheckTest, ASearchStoresWhatTheFunctionDecidesTheBaselineIncluded) {
  const fs::path db =
      fs::temp_directory_path() / ("gputune_host_check_" + std::to_string(getpid()) + ".db");
  fs::remove(db);
  SearchRequest request;
  request.spec = spec_path();
  request.db = db.string();
  request.fast = true;
  request.sampling = "full";  // racing's final rounds would check the top three again
  int calls = 0;
  request.host_check = [&calls](const HostCheckArrays& arrays) {
    ++calls;
    EXPECT_EQ(arrays.outputs.size(), 1u);
    EXPECT_EQ(arrays.inputs.size(), 2u) << "x and y; scalars are no inputs";
    return axpy_check(arrays);
  };
  const SearchOutcome outcome = search(request);
  fs::remove(db);
  EXPECT_EQ(calls, 6) << "the baseline and the five other variants, once each";
  EXPECT_EQ(outcome.baseline.status, Status::kWrongAnswer) << outcome.baseline.message;
  // n / 2 of 100003.
  EXPECT_EQ(outcome.baseline.message.rfind("out[50001] is ", 0), 0u) << outcome.baseline.message;
  int ok = 0, wrong = 0;
  for (const Measurement& m : outcome.evaluated) {
    if (m.config == outcome.baseline.config) continue;
    const bool right = m.config.find("\"BUG\":0") != std::string::npos;
    EXPECT_EQ(m.status, right ? Status::kOk : Status::kWrongAnswer) << m.config << m.message;
    ok += m.status == Status::kOk;
    wrong += m.status == Status::kWrongAnswer;
    if (m.status == Status::kOk) EXPECT_FALSE(m.samples_ms.empty());
  }
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(wrong, 3) << "BUG 1 at B 256, BUG 2 at both blocks";
}

}  // namespace
}  // namespace gputune
