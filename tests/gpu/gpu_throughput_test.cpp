// The GPU side of throughput: inputs filled on the GPU are the host's bytes, and a worker that
// gets its next candidate ahead (loading it during the checked run) measures what a runner
// without lookahead measures.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "compile/input_filler.h"
#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "process/process_runner.h"
#include "run/cuda_driver.h"
#include "run/device_fill.h"
#include "run/host_buffers.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

class GpuThroughputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = list_gpus();
    if (gpus_.empty()) GTEST_SKIP() << "no GPU";
  }
  std::vector<DeviceInfo> gpus_;
};

ArgumentSpec filled(ScalarType type, Fill fill) {
  ArgumentSpec argument;
  argument.name = "in";
  argument.type = type;
  argument.fill = fill;
  argument.seed = 12345;
  // Within every type's range: out of range, a conversion is undefined on host and GPU alike.
  argument.fill_low = 0.5;
  argument.fill_high = 120.25;
  argument.fill_value = 2.5;
  return argument;
}

TEST_F(GpuThroughputTest, DeviceFillGivesTheHostFillsBytes) {
  Spec spec;
  const std::vector<ScalarType> types = {ScalarType::kFloat32, ScalarType::kFloat64,
                                         ScalarType::kInt32,   ScalarType::kInt64,
                                         ScalarType::kUint8,   ScalarType::kUint32};
  for (ScalarType type : types) spec.arguments.push_back(filled(type, Fill::kRandom));
  const auto compiler = make_nvrtc_compiler();
  const InputFillers fillers = compile_input_fillers(spec, *compiler, gpus_[0].arch());
  cuda::Context context(0);
  cuda::Stream stream;
  DeviceFill device_fill(fillers);
  constexpr uint64_t kCount = (uint64_t{1} << 21) + 3;  // past one grid's worth, not a multiple
  for (ScalarType type : types) {
    for (Fill fill : {Fill::kRandom, Fill::kIota, Fill::kConstant, Fill::kZeros}) {
      const ArgumentSpec argument = filled(type, fill);
      const InputBytes host = host_fill(argument, type, kCount);
      cuda::DeviceBuffer buffer(host.size());
      buffer.fill_bytes(0x5A);
      device_fill.fill(argument, buffer, gpus_[0].sm_count, stream);
      stream.synchronize();
      std::vector<unsigned char> got(host.size());
      buffer.download(got.data());
      size_t first_difference = got.size();
      for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != host[i]) {
          first_difference = i;
          break;
        }
      }
      EXPECT_EQ(first_difference, got.size())
          << type_name(type) << " fill " << static_cast<int>(fill) << ": byte " << first_difference
          << " differs";
    }
  }
}

const char kFaultySpec[] = R"(
description: out = 2 * in, with planted faults
kernel: {source: kernels/faulty.cu, name: faulty}
problem: {n: 1000003}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: in,  type: float32, count: n, fill: random, seed: 7, range: [-1, 1]}
  - {name: n,   type: int32,   value: n}
launch:
  block: [THREADS]
  grid:  [ceil(n / THREADS)]
parameters: {FAULT: [0, 1, 2, 3], THREADS: [128, 256, 2048]}
baseline: {FAULT: 0, THREADS: 256}
check: {rtol: 0, atol: 0}
)";

TEST_F(GpuThroughputTest, TheWorkerThatLoadsAheadMeasuresTheSameStatuses) {
  const Problem problem(parse_spec(kFaultySpec, test::source_dir() + "/tests/gpu/faulty.yaml"));
  TimingOptions timing;
  timing.warmup_ms = 2;
  timing.min_samples = 3;
  timing.max_samples = 10;
  timing.max_seconds = 0.05;
  // Compiles in child processes, as a search does: this process forks GPU workers below and
  // must not have loaded NVRTC and the driver first.
  CompilePool pool(4, make_nvrtc_compiler, nullptr);
  auto candidate = [&](uint64_t index) {
    Candidate c;
    c.variant = problem.variant(index);
    c.kernel = pool.compile(compile_request(problem, c.variant, gpus_[0].arch()));
    return c;
  };
  const Candidate baseline = candidate(problem.baseline_index());
  std::vector<Candidate> all;
  for (uint64_t i = 0; i < problem.space().size(); ++i) all.push_back(candidate(i));

  // The workers first: once this process has initialised CUDA, the workers it forks cannot.
  auto workers = make_process_runner(problem, {0}, timing, pool);
  workers->set_reference(baseline);
  const std::vector<Measurement> got = workers->run(all);

  // Without lookahead, in this process; a sticky fault (FAULT 3) would end it, so not those.
  auto direct = make_gpu_runner(
      problem, 0, timing, compile_output_checkers(problem.spec(), pool, gpus_[0].arch()), nullptr,
      compile_input_fillers(problem.spec(), pool, gpus_[0].arch()));
  direct->set_reference(baseline);
  std::vector<Status> expected;
  for (const Candidate& c : all) {
    // A sticky fault ends the process it runs in, unless its block is refused before launch.
    const bool sticky = c.variant.config.find("\"FAULT\":3") != std::string::npos &&
                        c.variant.config.find("\"THREADS\":2048") == std::string::npos;
    expected.push_back(sticky ? Status::kRuntimeError : direct->run({c}).at(0).status);
  }
  direct.reset();

  ASSERT_EQ(got.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(got[i].config_index, all[i].variant.index);
    EXPECT_EQ(got[i].status, expected[i]) << all[i].variant.config << ": " << got[i].message;
    if (got[i].status == Status::kOk) {
      EXPECT_GT(got[i].gpu_busy_ms, 0) << all[i].variant.config;
      EXPECT_LE(got[i].gpu_busy_ms, got[i].check_ms + got[i].time_ms) << all[i].variant.config;
    }
  }
  EXPECT_GE(workers->stats().restarts, 1) << "the sticky faults replaced the worker";
}

}  // namespace
}  // namespace gputune
