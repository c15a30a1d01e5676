// The search driver on the engine: compile pool and GPU worker processes (with stand-ins inside
// them), faults, Ctrl-C, and a driver killed with SIGKILL. No GPU needed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "process/compile_pool.h"
#include "process/process_runner.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "support/engine_fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::quick_watchdog;
using testing::Script;
using testing::scripted;
using testing::ScriptedCompiler;
using testing::ScriptedRunner;

std::string sql_text(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return out;
}

int sql_int(const std::string& path, const std::string& sql) {
  const std::string text = sql_text(path, sql);
  return text.empty() ? -1 : std::stoi(text);
}

class EngineSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_engine_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Problem problem() {
    return Problem(parse_spec(R"(kernel: {source: k.cu, name: k}
problem: {n: 64}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [A * 32], grid: [ceil(n / (A * 32))]}
parameters: {A: [1, 2, 3, 4], B: [0, 1, 2], FAIL: [0, 1]}
constraints: [A != 3]
baseline: {A: 1, B: 0, FAIL: 0}
)",
                              (dir_ / "spec.yaml").string()));
  }

  static CompilerFactory compiler_factory(int sleep_ms = 0) {
    return [sleep_ms] { return std::make_unique<ScriptedCompiler>(sleep_ms); };
  }

  fs::path dir_;
};

TEST_F(EngineSearchTest, FaultsCostOneVariantEachAndNothingIsLost) {
  Problem p = problem();
  const SearchSpace& space = p.space();
  Script script;
  const uint64_t hang = space.encode({1, 0, 0}), sticky = space.encode({1, 1, 0}),
                 crash = space.encode({3, 0, 0}), wrong = space.encode({3, 1, 0}),
                 resource = space.encode({3, 2, 0});
  script.hang = {hang};
  script.sticky = {sticky};
  script.abort = {crash};
  script.wrong = {wrong};
  script.resource = {resource};
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  CompilePool compiler(2, compiler_factory());
  const std::string db = (dir_ / "faults.db").string();
  auto store = open_sqlite_store(db);
  SearchResult result = run_search(p, runner, compiler, *store, {});

  EXPECT_EQ(result.evaluated.size(), space.count_valid());
  auto stored = store->measured(result.workload);
  ASSERT_EQ(stored.size(), space.count_valid()) << "every variant is stored";
  std::map<uint64_t, Status> expected = {{hang, Status::kTimeout},
                                         {sticky, Status::kRuntimeError},
                                         {crash, Status::kRuntimeError},
                                         {wrong, Status::kWrongAnswer},
                                         {resource, Status::kResourceExceeded}};
  for (const Measurement& m : stored) {
    Status want = Status::kOk;
    if (expected.count(m.config_index)) want = expected[m.config_index];
    if (m.config.find("\"FAIL\":1") != std::string::npos) want = Status::kCompileError;
    EXPECT_EQ(m.status, want) << m.config << ": " << m.message;
    if (m.status == Status::kOk) {
      EXPECT_DOUBLE_EQ(m.check_ms, 1) << "per-variant figures are stored";
      EXPECT_DOUBLE_EQ(m.time_ms, 2);
    }
  }
  const SearchRecord& r = result.record;
  EXPECT_EQ(r.jobs, 2);
  EXPECT_EQ(r.gpus, 1);
  EXPECT_EQ(r.worker_restarts, 4);  // the timeout, the sticky error, the crash twice
  EXPECT_GT(r.check_s, 0);
  EXPECT_GT(r.time_s, 0);
  EXPECT_EQ(sql_int(db, "SELECT COUNT(*) FROM measurements"),
            static_cast<int>(space.count_valid()));
  EXPECT_EQ(sql_int(db, "SELECT worker_restarts FROM searches"), 4);
  EXPECT_EQ(sql_int(db, "SELECT jobs FROM searches"), 2);
}

TEST_F(EngineSearchTest, PipelineFindsWhatTheSequentialSearchFinds) {
  Problem p = problem();
  auto sequential_store = open_sqlite_store(":memory:");
  testing::ScriptedCompiler plain_compiler;
  ScriptedRunner plain_runner({}, 0);
  SearchResult sequential = run_search(p, plain_runner, plain_compiler, *sequential_store, {});

  ProcessRunner runner({0, 1}, scripted({}), quick_watchdog());
  CompilePool compiler(3, compiler_factory(5));
  auto store = open_sqlite_store(":memory:");
  SearchResult pipelined = run_search(p, runner, compiler, *store, {});
  ASSERT_EQ(pipelined.evaluated.size(), sequential.evaluated.size());
  for (size_t i = 0; i < sequential.evaluated.size(); ++i) {
    EXPECT_EQ(pipelined.evaluated[i].config_index, sequential.evaluated[i].config_index)
        << "the strategy observes in proposal order";
    EXPECT_EQ(pipelined.evaluated[i].status, sequential.evaluated[i].status);
  }
  auto best = [](const std::vector<Measurement>& all) {
    const Measurement* b = nullptr;
    for (const auto& m : all) {
      if (m.status == Status::kOk && (!b || m.median_ms() < b->median_ms())) b = &m;
    }
    return b ? b->config_index : ~uint64_t{0};
  };
  EXPECT_EQ(best(store->measured(pipelined.workload)),
            best(sequential_store->measured(sequential.workload)));
  EXPECT_EQ(pipelined.record.gpus, 2);
}

TEST_F(EngineSearchTest, StopEndsSoonAndTheRerunCompletesWithoutDuplicates) {
  Problem p = problem();
  const std::string db = (dir_ / "stop.db").string();
  Script script;
  script.sleep_ms = 30;
  std::atomic<bool> stop{false};
  {
    ProcessRunner runner({0}, scripted(script), quick_watchdog());
    CompilePool compiler(2, compiler_factory());
    auto store = open_sqlite_store(db);
    auto progress = [&](const SearchProgress& s) {
      if (s.done >= 5) stop = true;
    };
    SearchResult first = run_search(p, runner, compiler, *store, {}, progress, &stop);
    EXPECT_TRUE(first.record.interrupted);
    EXPECT_LT(store->measured(first.workload).size(), p.space().count_valid());
  }
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  CompilePool compiler(2, compiler_factory());
  auto store = open_sqlite_store(db);
  SearchResult second = run_search(p, runner, compiler, *store, {});
  EXPECT_FALSE(second.record.interrupted);
  EXPECT_EQ(store->measured(second.workload).size(), p.space().count_valid());
  EXPECT_EQ(sql_int(db, "SELECT COUNT(*) FROM measurements"),
            static_cast<int>(p.space().count_valid()));
}

TEST_F(EngineSearchTest, KilledDriverLosesOnlyWhatWasInFlightAndTheNextRunResumes) {
  Problem p = problem();
  const std::string db = (dir_ / "killed.db").string();
  const uint64_t valid = p.space().count_valid();
  Script script;
  script.sleep_ms = 60;
  const pid_t driver = fork();
  ASSERT_GE(driver, 0);
  if (driver == 0) {
    int rc = 0;
    try {
      ProcessRunner runner({0}, scripted(script), quick_watchdog());
      CompilePool compiler(2, compiler_factory());
      auto store = open_sqlite_store(db);
      run_search(p, runner, compiler, *store, {});
    } catch (...) {
      rc = 3;
    }
    _exit(rc);
  }
  // Kill it once a few variants are stored, mid-search.
  int stored = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (stored < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (fs::exists(db)) stored = sql_int(db, "SELECT COUNT(*) FROM measurements");
  }
  ASSERT_EQ(kill(driver, SIGKILL), 0);
  int status = 0;
  waitpid(driver, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the driver finished before it was killed";
  const int after_kill = sql_int(db, "SELECT COUNT(*) FROM measurements");
  EXPECT_GE(after_kill, 4);
  EXPECT_LT(after_kill, static_cast<int>(valid));
  EXPECT_EQ(sql_text(db, "PRAGMA integrity_check"), "ok");

  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  CompilePool compiler(2, compiler_factory());
  auto store = open_sqlite_store(db);
  SearchResult rerun = run_search(p, runner, compiler, *store, {});
  EXPECT_EQ(store->measured(rerun.workload).size(), valid);
  EXPECT_EQ(rerun.record.reused, after_kill);
  EXPECT_EQ(sql_int(db, "SELECT COUNT(*) FROM measurements"), static_cast<int>(valid))
      << "nothing was measured twice";
  EXPECT_EQ(sql_text(db, "PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace gputune
