#include "process/compile_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "gputune/error.h"
#include "support/engine_fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::ScriptedCompiler;

CompileRequest request(int i, const std::string& extra = "") {
  CompileRequest r;
  r.source = "__global__ void k() {}  // " + std::to_string(i);
  r.source_name = "k.cu";
  r.kernel_name_expressions = {"k"};
  r.options = {"-DI=" + std::to_string(i)};
  if (!extra.empty()) r.options.push_back(extra);
  r.arch = "sm_90";
  return r;
}

CompilerFactory scripted(int sleep_ms = 0) {
  return [sleep_ms] { return std::make_unique<ScriptedCompiler>(sleep_ms); };
}

// Every result, by ticket, waiting for all submitted jobs.
std::map<uint64_t, CompiledKernel> drain(CompilePool& pool) {
  std::map<uint64_t, CompiledKernel> out;
  while (pool.pending() > 0) {
    for (auto& [ticket, kernel] : pool.poll(-1)) {
      EXPECT_EQ(out.count(ticket), 0u) << "ticket " << ticket << " came back twice";
      out[ticket] = std::move(kernel);
    }
  }
  return out;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("gputune_pool_test_" + std::to_string(getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

TEST(CompilePool, ParallelResultsEqualSequentialOnes) {
  CompilePool pool(4, scripted(20));
  EXPECT_EQ(pool.parallelism(), 4u);
  std::map<uint64_t, int> job_of;
  for (int i = 0; i < 24; ++i) job_of[pool.submit(request(i, i % 5 == 0 ? "-DFAIL=1" : ""))] = i;
  const auto start = std::chrono::steady_clock::now();
  auto results = drain(pool);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), 24u);
  ScriptedCompiler sequential;
  for (auto& [ticket, kernel] : results) {
    const int i = job_of.at(ticket);
    CompiledKernel expected = sequential.compile(request(i, i % 5 == 0 ? "-DFAIL=1" : ""));
    EXPECT_EQ(kernel.ok, expected.ok) << i;
    EXPECT_EQ(kernel.image, expected.image) << i;
    EXPECT_EQ(kernel.log, expected.log) << i;
    EXPECT_EQ(kernel.lowered_names, expected.lowered_names) << i;
    EXPECT_EQ(kernel.registers, expected.registers) << i;
    EXPECT_FALSE(kernel.cached);
  }
  EXPECT_EQ(pool.stats().compiled, 24u);
  // 24 jobs of 20 ms take 480 ms one after another; four workers need about a quarter.
  EXPECT_LT(s, 0.45) << "the workers did not compile in parallel";
  // The Compiler interface: one job, waited for.
  EXPECT_EQ(pool.compile(request(7)).image, sequential.compile(request(7)).image);
}

TEST(CompilePool, CrashingWorkerIsReplacedAndItsJobIsAFailureNotLost) {
  CompilePool pool(2, scripted());
  const auto pids_before = pool.worker_pids();
  std::map<uint64_t, int> job_of;
  for (int i = 0; i < 6; ++i) job_of[pool.submit(request(i, i == 2 ? "-DCRASH=1" : ""))] = i;
  auto results = drain(pool);
  ASSERT_EQ(results.size(), 6u);
  for (auto& [ticket, kernel] : results) {
    if (job_of[ticket] == 2) {
      EXPECT_FALSE(kernel.ok);
      EXPECT_NE(kernel.log.find("compiler process died"), std::string::npos) << kernel.log;
      EXPECT_NE(kernel.log.find("signal 6"), std::string::npos) << kernel.log;
    } else {
      EXPECT_TRUE(kernel.ok) << kernel.log;
    }
  }
  EXPECT_EQ(pool.stats().crashes, 1u);
  EXPECT_NE(pool.worker_pids(), pids_before);
  // The pool keeps working at full strength.
  for (int i = 10; i < 14; ++i) pool.submit(request(i));
  for (auto& [ticket, kernel] : drain(pool)) EXPECT_TRUE(kernel.ok) << kernel.log;
}

TEST(CompilePool, WorkerKilledFromOutsideIsReplacedWhileIdle) {
  CompilePool pool(1, scripted());
  const int pid = pool.worker_pids()[0];
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  usleep(50 * 1000);
  EXPECT_TRUE(pool.compile(request(1)).ok);
  EXPECT_NE(pool.worker_pids()[0], pid);
}

TEST(CompilePool, CompilerMisuseIsAnErrorNotAVariantFailure) {
  CompilePool pool(1, scripted());
  pool.submit(request(1, "-DTHROW=1"));
  try {
    drain(pool);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNvrtc);
    EXPECT_NE(std::string(e.what()).find("scripted"), std::string::npos);
  }
  EXPECT_TRUE(pool.compile(request(2)).ok);
}

TEST(CompilePool, CancelledJobsNeverComeBack) {
  CompilePool pool(1, scripted(30));
  for (int i = 0; i < 5; ++i) pool.submit(request(i));
  pool.poll(0);
  pool.cancel();
  EXPECT_EQ(pool.pending(), 0u);
  const uint64_t after = pool.submit(request(9));
  auto results = drain(pool);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->first, after);
}

TEST(CompilePool, CacheHitsSkipTheWorkersAndFailuresOfTheCompilerAreNotCached) {
  TempDir dir;
  auto cache = std::make_shared<ModuleCache>(dir.str(), "13.0");
  {
    CompilePool pool(2, scripted(), cache);
    for (int i = 0; i < 4; ++i) pool.submit(request(i, i == 3 ? "-DCRASH=1" : ""));
    pool.submit(request(5, "-DFAIL=1"));
    drain(pool);
    EXPECT_EQ(pool.stats().compiled, 4u);  // the crashed job is not a compilation
    EXPECT_EQ(pool.stats().cache_hits, 0u);
  }
  CompilePool pool(2, scripted(), cache);
  for (int i = 0; i < 4; ++i) pool.submit(request(i, i == 3 ? "-DCRASH=1" : ""));
  pool.submit(request(5, "-DFAIL=1"));
  auto results = drain(pool);
  EXPECT_EQ(pool.stats().cache_hits, 4u);  // a compile error is as deterministic as a cubin
  EXPECT_EQ(pool.stats().crashes, 1u);     // the crash was not cached: it is tried again
  size_t cached = 0;
  for (auto& [ticket, kernel] : results) cached += kernel.cached;
  EXPECT_EQ(cached, 4u);
}

}  // namespace
}  // namespace gputune
