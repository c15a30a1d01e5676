// A convolution whose filter is a constant argument (a __constant__ symbol, not a kernel
// parameter), run by the GPU runner and checked against a float64 reference computed here from
// the same inputs the runner fills.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "compile/output_checker.h"
#include "gputune/error.h"
#include "process/gpu_list.h"
#include "run/host_buffers.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

// `filter_count` lets a test ask for more elements than the symbol holds.
std::string conv_spec(const std::string& filter_count) {
  return R"(
kernel: {source: kernels/conv_constant.cu, name: conv2d}
problem: {w: 67, h: 45, fw: 5}
arguments:
  - {name: out, type: float32, count: w * h, output: true}
  - {name: in, type: float32, count: (w + fw - 1) * (h + fw - 1), fill: random, seed: 3,
     range: [-1, 1]}
  - {name: weights, type: float32, count: )" +
         filter_count + R"(, constant: true, symbol: filter, fill: random, seed: 11,
     range: [-1, 1]}
  - {name: w, type: int32, value: w}
  - {name: h, type: int32, value: h}
launch:
  block: [BX, BY]
  grid: [ceil(w / BX), ceil(h / BY)]
parameters: {BX: [16, 32], BY: [4, 8]}
check: {rtol: 1e-4, atol: 1e-5}
)";
}

const ArgumentSpec& argument(const Spec& spec, const std::string& name) {
  for (const ArgumentSpec& a : spec.arguments) {
    if (a.name == name) return a;
  }
  throw std::runtime_error("no argument " + name);
}

class ConstantMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = list_gpus();
    if (gpus_.empty()) GTEST_SKIP() << "no GPU";
    compiler_ = make_nvrtc_compiler();
    timing_.warmup_ms = 1;
    timing_.min_samples = 3;
    timing_.max_samples = 10;
    timing_.max_seconds = 0.1;
  }

  Spec spec(const std::string& filter_count) {
    return parse_spec(conv_spec(filter_count),
                      test::source_dir() + "/tests/gpu/constant_memory.yaml");
  }

  Candidate candidate(const Problem& problem, uint64_t index) {
    Candidate c;
    c.variant = problem.variant(index);
    c.kernel = compiler_->compile(compile_request(problem, c.variant, gpus_[0].arch()));
    return c;
  }

  std::unique_ptr<Runner> runner(const Problem& problem) {
    return make_gpu_runner(problem, 0, timing_,
                           compile_output_checkers(problem.spec(), *compiler_, gpus_[0].arch()));
  }

  std::vector<DeviceInfo> gpus_;
  std::unique_ptr<Compiler> compiler_;
  TimingOptions timing_;
};

TEST_F(ConstantMemoryTest, ConvolutionWithItsFilterInConstantMemoryMatchesTheCpu) {
  Spec s = spec("fw * fw");
  const int w = 67, h = 45, fw = 5, in_w = w + fw - 1;
  // The runner fills inputs with host_fill, so the same call gives the same values here.
  const auto in_bytes = host_fill(argument(s, "in"), ScalarType::kFloat32, in_w * (h + fw - 1));
  const auto filter_bytes = host_fill(argument(s, "weights"), ScalarType::kFloat32, fw * fw);
  const float* in = reinterpret_cast<const float*>(in_bytes.data());
  const float* filter = reinterpret_cast<const float*>(filter_bytes.data());
  std::vector<float> expected(w * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = 0; j < fw; ++j) {
        for (int i = 0; i < fw; ++i) sum += double{in[(y + j) * in_w + x + i]} * filter[j * fw + i];
      }
      expected[y * w + x] = static_cast<float>(sum);
    }
  }
  for (ArgumentSpec& a : s.arguments) {
    if (a.name != "out") continue;
    auto bytes = std::make_shared<std::vector<unsigned char>>(expected.size() * sizeof(float));
    std::memcpy(bytes->data(), expected.data(), bytes->size());
    a.reference = bytes;
  }
  const Problem problem(s);
  auto r = runner(problem);
  const Measurement baseline = r->set_reference(candidate(problem, problem.baseline_index()));
  EXPECT_EQ(baseline.status, Status::kOk) << baseline.message;
  std::vector<Candidate> all;
  for (uint64_t i = 0; i < problem.space().size(); ++i) all.push_back(candidate(problem, i));
  for (const Measurement& m : r->run(all)) {
    EXPECT_EQ(m.status, Status::kOk) << m.config << ": " << m.message;
    EXPECT_FALSE(m.samples_ms.empty()) << m.config;
  }
}

TEST_F(ConstantMemoryTest, AFilterLargerThanItsSymbolNamesBothSizes) {
  const Problem problem(spec("fw * fw + 1"));
  auto r = runner(problem);
  try {
    r->set_reference(candidate(problem, problem.baseline_index()));
    FAIL() << "a constant argument larger than its symbol was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'weights' has 104 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("(100 bytes)"), std::string::npos) << message;
    EXPECT_NE(message.find("conv_constant.cu"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace gputune
