#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/bottleneck.h"
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

using Config = std::map<std::string, Value>;

// "TILE=32 block_order=row" -> its values.
Config config_of(const std::string& text) {
  Config config;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const size_t eq = word.find('=');
    const std::string name = word.substr(0, eq), value = word.substr(eq + 1);
    const bool integer = value.find_first_not_of("0123456789") == std::string::npos;
    config[name] = integer ? Value(int64_t{std::stoll(value)}) : Value(value);
  }
  return config;
}

// The index of the config with these values (every dimension named).
uint64_t index_of(const SearchSpace& space, const std::string& text) {
  const Config config = config_of(text);
  std::vector<size_t> digits;
  for (const Dimension& dimension : space.dimensions()) {
    const auto it = config.find(dimension.name);
    if (it == config.end()) throw std::runtime_error("no value for " + dimension.name);
    const auto at = std::find(dimension.values.begin(), dimension.values.end(), it->second);
    if (at == dimension.values.end()) throw std::runtime_error("bad value for " + dimension.name);
    digits.push_back(static_cast<size_t>(at - dimension.values.begin()));
  }
  return space.encode(digits);
}

class GpuRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = list_gpus();
    if (gpus_.empty()) GTEST_SKIP() << "no GPU";
    compiler_ = make_nvrtc_compiler();
    timing_.warmup_ms = 5;
    timing_.min_samples = 5;
    timing_.max_samples = 50;
    timing_.max_seconds = 0.2;
  }

  Candidate candidate(const Problem& problem, uint64_t index) {
    Candidate c;
    c.variant = problem.variant(index);
    c.kernel = compiler_->compile(compile_request(problem, c.variant, gpus_[0].arch()));
    return c;
  }

  // The runner, with the output checkers compiled here as the search's pool would.
  std::unique_ptr<Runner> gpu_runner(const Problem& problem) {
    return make_gpu_runner(problem, 0, timing_,
                           compile_output_checkers(problem.spec(), *compiler_, gpus_[0].arch()));
  }

  Candidate candidate(const Problem& problem, const std::string& config) {
    return candidate(problem, index_of(problem.space(), config));
  }

  std::vector<DeviceInfo> gpus_;
  std::unique_ptr<Compiler> compiler_;
  TimingOptions timing_;
};

const char kFaultySpec[] = R"(
description: out = 2 * in, with planted faults
kernel: {source: kernels/faulty.cu, name: faulty}
problem: {n: 100003}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: in,  type: float32, count: n, fill: random, seed: 7, range: [-1, 1]}
  - {name: n,   type: int32,   value: n}
launch:
  block: [THREADS]
  grid:  [ceil(n / THREADS)]
parameters: {FAULT: [0, 1, 2, 3], THREADS: [256, 2048]}
baseline: {FAULT: 0, THREADS: 256}
check: {rtol: 0, atol: 0}
)";

std::unique_ptr<Problem> faulty_problem() {
  return std::make_unique<Problem>(
      parse_spec(kFaultySpec, test::source_dir() + "/tests/gpu/faulty.yaml"));
}

std::unique_ptr<Problem> transpose_problem(const std::string& n) {
  return std::make_unique<Problem>(
      load_spec(test::source_dir() + "/spaces/transpose.yaml", {{"n", n}}));
}

TEST_F(GpuRunnerTest, DeviceInfoIsFilledIn) {
  const DeviceInfo& gpu = gpus_[0];
  std::printf("GPU 0: %s, %s, %d SMs, L2 %lld bytes, %lld bytes, driver %d, uuid %s\n",
              gpu.name.c_str(), gpu.arch().c_str(), gpu.sm_count,
              static_cast<long long>(gpu.l2_bytes), static_cast<long long>(gpu.memory_bytes),
              gpu.driver_version, gpu.uuid.c_str());
  EXPECT_FALSE(gpu.name.empty());
  EXPECT_GE(gpu.cc_major, 7);
  EXPECT_GT(gpu.sm_count, 0);
  EXPECT_GT(gpu.l2_bytes, 0);
  EXPECT_GT(gpu.memory_bytes, 0);
  EXPECT_GT(gpu.driver_version, 0);
  EXPECT_EQ(gpu.uuid.rfind("GPU-", 0), 0u) << gpu.uuid;
  // The per-SM limits the occupancy formula uses come from the driver.
  EXPECT_GT(gpu.sm_limits.registers, 0);
  EXPECT_GT(gpu.sm_limits.threads, 0);
  EXPECT_GT(gpu.sm_limits.blocks, 0);
  EXPECT_GT(gpu.sm_limits.shared_bytes, 0);
  EXPECT_GE(gpu.sm_limits.reserved_shared_bytes_per_block, 0);
}

TEST_F(GpuRunnerTest, AMissingOutputCheckerIsAnErrorThatNamesIt) {
  auto problem = faulty_problem();
  try {
    make_gpu_runner(*problem, 0, timing_, {});
    FAIL() << "a runner started without the checker of its float output";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gputune_check<float>"), std::string::npos) << e.what();
  }
  OutputCheckers broken = compile_output_checkers(problem->spec(), *compiler_, gpus_[0].arch());
  broken.begin()->second.image = "not a cubin";
  auto runner = make_gpu_runner(*problem, 0, timing_, broken);
  try {
    runner->set_reference(candidate(*problem, problem->baseline_index()));
    FAIL() << "a checker that does not load went unnoticed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gputune_check<float>"), std::string::npos) << e.what();
  }
}

TEST_F(GpuRunnerTest, TransposeBaselineAndTiledVariantMeasureOk) {
  auto problem = transpose_problem("1000");  // ragged: not a multiple of any tile
  auto runner = gpu_runner(*problem);
  const Measurement reference =
      runner->set_reference(candidate(*problem, problem->baseline_index()));
  EXPECT_EQ(reference.status, Status::kOk) << reference.message;
  EXPECT_GE(reference.samples_ms.size(), 3u);

  const std::vector<std::string> configs = {
      "SHARED=1 TILE=32 PAD=1 MERGE_Y=4 VEC=1 TALL=1 STREAM=0 block_order=row",
      "SHARED=1 TILE=64 PAD=1 MERGE_Y=8 VEC=1 TALL=2 STREAM=0 block_order=diagonal",
      "SHARED=0 TILE=16 PAD=0 MERGE_Y=2 VEC=1 TALL=1 STREAM=0 block_order=diagonal",
  };
  std::vector<Candidate> batch;
  for (const std::string& config : configs) batch.push_back(candidate(*problem, config));
  const auto results = runner->run(batch);
  ASSERT_EQ(results.size(), configs.size());
  for (const Measurement& m : results) {
    EXPECT_EQ(m.status, Status::kOk) << m.config << ": " << m.message;
    EXPECT_GE(m.samples_ms.size(), 3u) << m.config;
    EXPECT_GT(m.median_ms(), 0) << m.config;
    EXPECT_GT(m.registers, 0) << m.config;
    EXPECT_FALSE(m.config.empty());
  }
  EXPECT_GT(results[0].shared_bytes, 0);
}

TEST_F(GpuRunnerTest, WrongAnswersAreCaught) {
  auto problem = faulty_problem();
  auto runner = gpu_runner(*problem);
  runner->set_reference(candidate(*problem, problem->baseline_index()));
  const auto results = runner->run({candidate(*problem, "FAULT=1 THREADS=256"),
                                    candidate(*problem, "FAULT=2 THREADS=256"),
                                    candidate(*problem, "FAULT=0 THREADS=256")});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::kWrongAnswer) << results[0].message;
  EXPECT_NE(results[0].message.find("index 100002"), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("nan"), std::string::npos) << results[0].message;
  EXPECT_EQ(results[1].status, Status::kWrongAnswer) << results[1].message;
  EXPECT_NE(results[1].message.find("1 of 100003"), std::string::npos) << results[1].message;
  EXPECT_TRUE(results[0].samples_ms.empty());
  EXPECT_EQ(results[2].status, Status::kOk) << results[2].message;
}

// Inputs from given bytes (Fill::kData) and a given reference (the Python API's numpy arrays).
TEST_F(GpuRunnerTest, GivenDataAndReferenceAreUsed) {
  Spec spec = parse_spec(kFaultySpec, test::source_dir() + "/tests/gpu/faulty.yaml");
  const size_t n = 100003;
  std::vector<float> in(n), doubled(n);
  for (size_t i = 0; i < n; ++i) {
    in[i] = static_cast<float>(i % 1000) - 500.0f;
    doubled[i] = 2 * in[i];
  }
  auto bytes = [](const std::vector<float>& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    return std::make_shared<const std::vector<unsigned char>>(p, p + v.size() * sizeof(float));
  };
  spec.arguments[1].fill = Fill::kData;
  spec.arguments[1].data = bytes(in);
  spec.arguments[0].reference = bytes(doubled);
  Problem problem(spec);
  auto runner = gpu_runner(problem);
  EXPECT_EQ(runner->set_reference(candidate(problem, problem.baseline_index())).status,
            Status::kOk);
  const auto results = runner->run({candidate(problem, "FAULT=2 THREADS=256")});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::kWrongAnswer) << results[0].message;

  // A reference that the baseline does not match: the baseline is judged like any variant,
  // and the variants are still checked against the reference.
  std::vector<float> wrong = doubled;
  wrong[17] += 1;
  spec.arguments[0].reference = bytes(wrong);
  Problem mismatched(spec);
  auto runner2 = gpu_runner(mismatched);
  const Measurement judged =
      runner2->set_reference(candidate(mismatched, mismatched.baseline_index()));
  EXPECT_EQ(judged.status, Status::kWrongAnswer) << judged.message;
  EXPECT_NE(judged.message.find("index 17"), std::string::npos) << judged.message;
  const auto after = runner2->run({candidate(mismatched, mismatched.baseline_index())});
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].status, Status::kWrongAnswer) << after[0].message;

  // Data of the wrong size is a spec error before anything runs.
  spec.arguments[1].data = bytes(std::vector<float>(10));
  EXPECT_THROW(gpu_runner(Problem(spec)), Error);
}

const char kChainSpec[] = R"(
description: out = 4 * in in two launches through a scratch buffer
kernel: {source: kernels/chain.cu}
problem: {n: 100003}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: in,  type: float32, count: n, fill: random, seed: 7, range: [-1, 1]}
  - {name: tmp, type: float32, count: n, scratch: true}
  - {name: n,   type: int32,   value: n}
  - {name: factor, type: float32, value: 2}
launches:
  - {kernel: "scale<SKIP>", arguments: [tmp, in, n, factor], block: [256], grid: [ceil(n / 256)]}
  - {kernel: "scale<0>", arguments: [out, tmp, n, factor], block: [THREADS],
     grid: [ceil(n / THREADS)]}
parameters: {SKIP: [0, 1], THREADS: [128, 2048]}
check: {rtol: 0, atol: 0}
)";

// Launches run in order on the same buffers and are timed together; a scratch buffer is
// poisoned before each check, so a launch that leaves part of it unwritten cannot pass on what
// an earlier variant wrote there.
TEST_F(GpuRunnerTest, MultiLaunchVariantsRunInOrderAndScratchIsPoisoned) {
  Problem problem(parse_spec(kChainSpec, test::source_dir() + "/tests/gpu/chain.yaml"));
  auto runner = gpu_runner(problem);
  const Measurement baseline = runner->set_reference(candidate(problem, "SKIP=0 THREADS=128"));
  ASSERT_EQ(baseline.status, Status::kOk) << baseline.message;
  EXPECT_FALSE(baseline.samples_ms.empty());
  const auto results = runner->run({candidate(problem, "SKIP=0 THREADS=128"),
                                    candidate(problem, "SKIP=1 THREADS=128"),
                                    candidate(problem, "SKIP=0 THREADS=2048")});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::kOk) << results[0].message;
  EXPECT_EQ(results[1].status, Status::kWrongAnswer) << results[1].message;
  EXPECT_NE(results[1].message.find("1 of 100003"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].status, Status::kResourceExceeded) << results[2].message;
  EXPECT_NE(results[2].message.find("launch 2"), std::string::npos) << results[2].message;
}

TEST_F(GpuRunnerTest, TooLargeBlockIsResourceExceeded) {
  auto problem = faulty_problem();
  auto runner = gpu_runner(*problem);
  runner->set_reference(candidate(*problem, problem->baseline_index()));
  const auto results = runner->run({candidate(*problem, "FAULT=0 THREADS=2048")});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::kResourceExceeded) << results[0].message;
  EXPECT_NE(results[0].message.find("2048"), std::string::npos) << results[0].message;
}

// Exits 0 when the runner handled an illegal address as it should, printing how.
void illegal_address_scenario(const Problem& problem, Runner& runner,
                              const std::vector<Candidate>& batch) {
  auto fail = [](const std::string& why) {
    std::fprintf(stderr, "%s\n", why.c_str());
    std::exit(1);
  };
  const auto results = runner.run(batch);
  if (results.empty()) fail("no results");
  if (results[0].status != Status::kRuntimeError ||
      results[0].message.find("CUDA_ERROR_ILLEGAL_ADDRESS") == std::string::npos) {
    fail(std::string("first: ") + status_name(results[0].status) + " " + results[0].message);
  }
  if (results.size() == 3) {  // the context was recreated
    if (results[1].status != Status::kOk) fail("second: " + results[1].message);
    if (results[2].status != Status::kWrongAnswer) fail("third: " + results[2].message);
    std::fprintf(stderr, "sticky: recovered\n");
    std::exit(0);
  }
  if (results.size() != 1) fail("results stop after the sticky error, not later");
  try {
    runner.run({batch[1]});
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kCuda ||
        std::string(e.what()).find("Run again") == std::string::npos) {
      fail(std::string("unexpected error: ") + e.what());
    }
    std::fprintf(stderr, "sticky: lost: %s\n", e.what());
    std::exit(0);
  }
  fail("run() after a lost context did not throw");
}

// A sticky error poisons the whole process on current drivers, so it is planted in a child
// process; the other tests keep a healthy GPU.
TEST_F(GpuRunnerTest, IllegalAddressIsRuntimeErrorAndStopsOrRecovers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto problem = faulty_problem();
        auto runner = gpu_runner(*problem);
        runner->set_reference(candidate(*problem, problem->baseline_index()));
        illegal_address_scenario(
            *problem, *runner,
            {candidate(*problem, "FAULT=3 THREADS=256"), candidate(*problem, "FAULT=0 THREADS=256"),
             candidate(*problem, "FAULT=2 THREADS=256")});
      },
      ::testing::ExitedWithCode(0), "sticky: (recovered|lost)");
}

TEST_F(GpuRunnerTest, CompileErrorIsReportedNotRun) {
  auto problem = faulty_problem();
  auto runner = gpu_runner(*problem);
  runner->set_reference(candidate(*problem, problem->baseline_index()));
  Candidate broken = candidate(*problem, "FAULT=0 THREADS=256");
  broken.kernel.ok = false;
  broken.kernel.log = "test.cu(1): error: planted";
  const auto results = runner->run({broken});
  EXPECT_EQ(results[0].status, Status::kCompileError);
  EXPECT_EQ(results[0].message, "test.cu(1): error: planted");
}

// Its outputs are the reference (the spec gives none): a baseline that fails leaves nothing to
// check against.
TEST_F(GpuRunnerTest, FailingBaselineThrows) {
  auto problem = faulty_problem();
  auto runner = gpu_runner(*problem);
  EXPECT_THROW(runner->set_reference(candidate(*problem, "FAULT=1 THREADS=256")),
               Error);  // leaves an element NaN: nothing could be checked against it
  EXPECT_THROW(runner->run({}), Error);  // no reference yet
}

TEST_F(GpuRunnerTest, CopyBandwidth) {
  auto problem = faulty_problem();
  auto runner = gpu_runner(*problem);
  const double gbs = runner->measure_copy_bandwidth();
  std::printf("copy bandwidth: %.0f GB/s (read + write)\n", gbs);
  RecordProperty("copy_gbs", std::to_string(gbs));
  EXPECT_GT(gbs, 100);
}

// Every valid transpose variant at the spec's size: a figure for the report, and a check that
// the whole space runs.
TEST_F(GpuRunnerTest, TransposeSweep) {
  auto problem = transpose_problem("8192");
  auto runner = gpu_runner(*problem);
  const double copy_gbs = runner->measure_copy_bandwidth();
  const Measurement baseline =
      runner->set_reference(candidate(*problem, problem->baseline_index()));
  std::vector<Candidate> batch;
  for (uint64_t i = 0; i < problem->space().size(); ++i) {
    if (problem->space().valid(i)) batch.push_back(candidate(*problem, i));
  }
  const auto results = runner->run(batch);
  const Measurement* best = &baseline;
  int ok = 0;
  for (const Measurement& m : results) {
    EXPECT_EQ(m.status, Status::kOk) << m.config << ": " << m.message;
    if (m.status != Status::kOk) continue;
    ++ok;
    if (m.median_ms() < best->median_ms()) best = &m;
  }
  const double bytes = problem->bytes(problem->baseline_index());
  auto gbs = [&](const Measurement& m) { return bytes / (m.median_ms() * 1e6); };
  std::printf(
      "transpose n=8192: %d/%zu ok; baseline %.3f ms (%.0f GB/s); best %s %.3f ms "
      "(%.0f GB/s, %.0f%% of copy %.0f GB/s), %zu samples, spread %.3f\n",
      ok, results.size(), baseline.median_ms(), gbs(baseline), best->config.c_str(),
      best->median_ms(), gbs(*best), 100 * gbs(*best) / copy_gbs, copy_gbs, best->samples_ms.size(),
      best->spread());
}

// A profile runs between measurements in the worker that times: the variants measured after it
// must still check out and time as before (a profiler left attached would replay every launch).
TEST_F(GpuRunnerTest, ACuptiProfileLeavesLaterMeasurementsAlone) {
  auto problem = transpose_problem("4096");
  auto runner = gpu_runner(*problem);
  runner->set_reference(candidate(*problem, problem->baseline_index()));
  const Candidate padded =
      candidate(*problem, "SHARED=1 TILE=32 PAD=1 MERGE_Y=4 VEC=1 TALL=1 STREAM=0 block_order=row");
  const double before = runner->run({padded})[0].median_ms();
  std::vector<RangeMetric> metrics;
  for (const auto& [collect, report] : range_profiler_metrics())
    metrics.push_back({collect, report});
  const auto start = std::chrono::steady_clock::now();
  const RangeCounters counters = runner->profile(padded, metrics);
  const double first_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (counters.unavailable) GTEST_SKIP() << counters.message;
  ASSERT_TRUE(counters.ok) << counters.message;
  const auto again = std::chrono::steady_clock::now();
  ASSERT_TRUE(runner->profile(padded, metrics).ok);
  const double second_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count();
  std::printf("CUPTI profile: first %.3f s, second %.3f s (%s)\n", first_s, second_s,
              counters.source.c_str());
  ASSERT_EQ(counters.launches.size(), 1u);
  EXPECT_GT(counters.launches[0].at("smsp__inst_executed.sum"), 0);
  EXPECT_GT(counters.launches[0].at("smsp__sass_inst_executed_op_shared_ld.sum"), 0);
  const Measurement after = runner->run({padded})[0];
  EXPECT_EQ(after.status, Status::kOk) << after.message;
  std::printf("median before %.4f ms, after %.4f ms\n", before, after.median_ms());
  EXPECT_LT(after.median_ms(), 1.5 * before);
  EXPECT_GT(after.median_ms(), before / 1.5);
}

}  // namespace
}  // namespace gputune
