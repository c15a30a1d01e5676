// A search over variants that fault in every way the engine must survive, on the GPU.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "process/process_runner.h"
#include "run/runner.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string integrity(const std::string& path) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return out;
}

TEST(FaultCorpus, SearchFinishesAndEveryFaultIsStoredWithItsStatus) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  Problem problem(load_spec(test::source_dir() + "/tests/gpu/faults.yaml"));
  TimingOptions timing;
  timing.warmup_ms = 5;
  timing.min_samples = 5;
  timing.max_samples = 50;
  timing.max_seconds = 0.05;
  WatchdogOptions watchdog;
  watchdog.floor_s = 2;
  const fs::path db =
      fs::temp_directory_path() / ("gputune_faults_" + std::to_string(getpid()) + ".db");
  fs::remove(db);

  const auto start = std::chrono::steady_clock::now();
  CompilePool compiler(4, make_nvrtc_compiler, nullptr);
  auto runner = make_process_runner(problem, {0}, timing, compiler, watchdog);
  auto store = open_sqlite_store(db.string());
  SearchResult result = run_search(problem, *runner, compiler, *store, {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // FAULT value -> what the variant must be stored as (faults.cu says why).
  const std::map<std::string, Status> expected = {
      {"0", Status::kOk},          {"1", Status::kRuntimeError},
      {"2", Status::kTimeout},     {"3", Status::kResourceExceeded},
      {"4", Status::kWrongAnswer}, {"5", Status::kWrongAnswer},
      {"6", Status::kCompileError}};
  const auto stored = store->measured(result.workload);
  EXPECT_EQ(stored.size(), problem.space().count_valid()) << "a variant was lost";
  std::map<std::string, int> counts;
  for (const Measurement& m : stored) {
    const size_t at = m.config.find("\"FAULT\":");
    ASSERT_NE(at, std::string::npos) << m.config;
    const std::string fault = m.config.substr(at + 8, 1);
    EXPECT_EQ(status_name(m.status), std::string(status_name(expected.at(fault))))
        << m.config << ": " << m.message;
    if (m.status == Status::kOk) EXPECT_FALSE(m.samples_ms.empty()) << m.config;
    ++counts[status_name(m.status)];
  }
  std::string summary;
  for (const auto& [status, count] : counts) summary += " " + status + "=" + std::to_string(count);
  std::printf("fault corpus: %zu variants in %.1f s,%s; GPU workers replaced %lld times\n",
              stored.size(), s, summary.c_str(),
              static_cast<long long>(result.record.worker_restarts));
  EXPECT_EQ(result.record.worker_restarts, 4);  // 2 sticky errors, 2 timeouts
  store.reset();
  runner.reset();
  EXPECT_EQ(integrity(db.string()), "ok");
  fs::remove(db);
}

}  // namespace
}  // namespace gputune
