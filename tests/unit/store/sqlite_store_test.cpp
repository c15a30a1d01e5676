#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gputune/error.h"
#include "store/store.h"
#include "support/measurement_fields.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-1234";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.l2_bytes = 60 << 20;
  d.memory_bytes = int64_t{141} << 30;
  d.driver_version = 13000;
  return d;
}

WorkloadKey transpose_key() {
  WorkloadKey k;
  k.spec_hash = "spec-aaaa";
  k.source_hash = "src-bbbb";
  k.spec_path = "specs/transpose.yaml";
  k.spec_text = "kernel: {name: transpose}\n";
  k.kernel_name = "transpose";
  k.problem_json = R"({"n":8192})";
  k.device = h200();
  k.nvrtc_version = "13.0";
  return k;
}

Measurement ok(uint64_t index, std::vector<double> samples) {
  Measurement m;
  m.config_index = index;
  m.config = R"({"TILE":)" + std::to_string(index) + "}";
  m.samples_ms = std::move(samples);
  return m;
}

Measurement failed(uint64_t index, Status status, const std::string& message) {
  Measurement m;
  m.config_index = index;
  m.config = R"({"TILE":)" + std::to_string(index) + "}";
  m.status = status;
  m.message = message;
  return m;
}

// A fresh path in a fresh directory, removed with the fixture (WAL side files included).
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gputune-store-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (fs::path(dir_) / name).string(); }

 private:
  std::string dir_;
};

// Raw access for what the Store API does not expose (pragmas, tampering).
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  ~RawDb() { sqlite3_close(db_); }
  std::string text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    return out;
  }
  void exec(const std::string& sql) {
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db_);
  }

 private:
  sqlite3* db_ = nullptr;
};

void expect_db_error(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDb) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(SqliteStore, EveryMeasurementFieldRoundTrips) {
  auto store = open_sqlite_store(":memory:");
  int64_t w = store->workload(transpose_key());
  Measurement a;
  a.config_index = 0xFFFF'FFFF'FFFF'FFF0ull;  // above INT64_MAX: stored as the same 64 bits
  a.config = R"({"TILE":32,"PAD":1,"order":"diagonal"})";
  a.status = Status::kOk;
  a.samples_ms = {0.1, 1.0 / 3.0, 2.5e-7, 123456.789012345};
  a.compile_ms = 812.25;
  a.registers = 96;
  a.shared_bytes = 33 * 32 * 4;
  a.spill_bytes = 16;
  a.message = "line one\nline 'two' with \"quotes\" and ünïcode";
  Measurement b = failed(7, Status::kCompileError, "error: identifier \"X\" is undefined");
  b.compile_ms = 3.5;
  store->commit(w, {a, b});

  auto got = store->measured(w);
  ASSERT_EQ(got.size(), 2u);
  // Ordered by config index as stored (signed): a's index is negative there.
  const Measurement& ga = got[0].config_index == a.config_index ? got[0] : got[1];
  const Measurement& gb = got[0].config_index == a.config_index ? got[1] : got[0];
  EXPECT_EQ(ga.config_index, a.config_index);
  EXPECT_EQ(ga.config, a.config);
  EXPECT_EQ(ga.status, a.status);
  EXPECT_EQ(ga.samples_ms, a.samples_ms);  // bit-exact through JSON
  EXPECT_EQ(ga.compile_ms, a.compile_ms);
  EXPECT_EQ(ga.registers, a.registers);
  EXPECT_EQ(ga.shared_bytes, a.shared_bytes);
  EXPECT_EQ(ga.spill_bytes, a.spill_bytes);
  EXPECT_EQ(ga.message, a.message);
  EXPECT_EQ(gb.config_index, 7u);
  EXPECT_EQ(gb.status, Status::kCompileError);
  EXPECT_TRUE(gb.samples_ms.empty());
  EXPECT_EQ(gb.message, b.message);
  EXPECT_EQ(gb.compile_ms, 3.5);
}

TEST(SqliteStore, EveryStatusRoundTrips) {
  auto store = open_sqlite_store(":memory:");
  int64_t w = store->workload(transpose_key());
  const Status all[] = {Status::kOk,           Status::kCompileError, Status::kResourceExceeded,
                        Status::kRuntimeError, Status::kTimeout,      Status::kWrongAnswer};
  const uint64_t count = std::size(all);
  std::vector<Measurement> ms;
  for (uint64_t i = 0; i < count; ++i) ms.push_back(failed(i, all[i], "m"));
  store->commit(w, ms);
  auto got = store->measured(w);
  ASSERT_EQ(got.size(), count);
  for (uint64_t i = 0; i < count; ++i) {
    EXPECT_EQ(got[i].config_index, i);
    EXPECT_EQ(got[i].status, all[i]);
  }
}

TEST(SqliteStore, LatestAttemptWins) {
  auto store = open_sqlite_store(":memory:");
  int64_t w = store->workload(transpose_key());
  store->commit(w, {failed(3, Status::kTimeout, "watchdog"), ok(4, {1.0})});
  store->commit(w, {ok(3, {2.0, 2.1}), ok(5, {0.5})});
  store->commit(w, {failed(4, Status::kRuntimeError, "CUDA_ERROR_ILLEGAL_ADDRESS")});

  auto got = store->measured(w);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].config_index, 3u);
  EXPECT_EQ(got[0].status, Status::kOk);
  EXPECT_EQ(got[0].samples_ms, (std::vector<double>{2.0, 2.1}));
  EXPECT_EQ(got[1].config_index, 4u);
  EXPECT_EQ(got[1].status, Status::kRuntimeError);
  EXPECT_EQ(got[1].message, "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(got[2].config_index, 5u);

  auto summaries = store->workloads();
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].attempts, 5);  // every attempt is kept
  EXPECT_EQ(summaries[0].ok, 2);        // configs 3 and 5: 4's latest attempt failed
}

TEST(SqliteStore, AttemptsAreTheWholeHistoryInOrder) {
  auto store = open_sqlite_store(":memory:");
  int64_t w = store->workload(transpose_key());
  WorkloadKey smaller = transpose_key();
  smaller.problem_json = R"({"n":4096})";
  int64_t other = store->workload(smaller);
  store->commit(w, {ok(5, {2.0}), failed(3, Status::kTimeout, "watchdog")});
  store->commit(other, {ok(1, {1.0})});
  store->commit(w, {ok(3, {1.5})});
  auto got = store->attempts(w);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].measurement.config_index, 5u);
  EXPECT_EQ(got[1].measurement.status, Status::kTimeout);
  EXPECT_EQ(got[2].measurement.config_index, 3u);
  EXPECT_EQ(got[2].measurement.samples_ms, std::vector<double>{1.5});
  EXPECT_LT(got[0].id, got[1].id);
  EXPECT_LT(got[1].id, got[2].id);
  EXPECT_EQ(got[0].created_at.size(), 20u);  // 2025-01-01T12:00:00Z
  EXPECT_EQ(got[0].created_at.back(), 'Z');
}

TEST(SqliteStore, TwoAttemptsInOneCommitKeepTheLater) {
  auto store = open_sqlite_store(":memory:");
  int64_t w = store->workload(transpose_key());
  store->commit(w, {ok(1, {9.0}), ok(1, {1.0})});
  auto got = store->measured(w);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].samples_ms, std::vector<double>{1.0});
}

TEST(SqliteStore, WorkloadIdentity) {
  auto store = open_sqlite_store(":memory:");
  WorkloadKey k = transpose_key();
  int64_t w = store->workload(k);
  EXPECT_EQ(store->workload(k), w);

  WorkloadKey info_only = k;  // path, kernel name and uuid do not change results
  info_only.spec_path = "elsewhere/transpose.yaml";
  info_only.device.uuid = "GPU-other-card-same-model";
  EXPECT_EQ(store->workload(info_only), w);

  WorkloadKey problem = k;
  problem.problem_json = R"({"n":4096})";
  WorkloadKey device = k;
  device.device.driver_version = 12080;
  WorkloadKey sms = k;
  sms.device.sm_count = 114;
  WorkloadKey nvrtc = k;
  nvrtc.nvrtc_version = "12.8";
  WorkloadKey spec = k;
  spec.spec_hash = "spec-cccc";
  WorkloadKey source = k;
  source.source_hash = "src-dddd";
  std::vector<int64_t> ids = {w};
  for (const WorkloadKey& other : {problem, device, sms, nvrtc, spec, source}) {
    int64_t id = store->workload(other);
    for (int64_t seen : ids) EXPECT_NE(id, seen);
    ids.push_back(id);
    EXPECT_EQ(store->workload(other), id);
  }
  EXPECT_EQ(store->workloads().size(), ids.size());
}

// A database is read later from other folders (`gputune release` loads the spec it names):
// a path typed relative to the search's folder would name nothing there.
TEST(SqliteStore, ASpecPathThatNamesAFileIsStoredAbsolute) {
  TempDir dir;
  const std::string spec = dir.file("specs/mine.yaml");
  fs::create_directories(fs::path(spec).parent_path());
  std::ofstream(spec) << "kernel: {name: transpose}\n";
  auto store = open_sqlite_store(":memory:");
  WorkloadKey typed = transpose_key();
  typed.spec_path = fs::relative(spec, fs::current_path()).string();
  ASSERT_TRUE(fs::path(typed.spec_path).is_relative());
  store->workload(typed);
  EXPECT_EQ(store->workloads()[0].key.spec_path, fs::path(spec).lexically_normal().string());
  // A name that is no file (an inline spec's) stays as given.
  WorkloadKey inline_spec = transpose_key();
  inline_spec.spec_hash = "spec-inline";
  inline_spec.spec_path = "<python>";
  const int64_t w = store->workload(inline_spec);
  for (const WorkloadSummary& s : store->workloads()) {
    if (s.id == w) EXPECT_EQ(s.key.spec_path, "<python>");
  }
}

TEST(SqliteStore, MeasurementsBelongToTheirWorkload) {
  auto store = open_sqlite_store(":memory:");
  WorkloadKey k = transpose_key();
  int64_t a = store->workload(k);
  k.problem_json = R"({"n":1024})";
  int64_t b = store->workload(k);
  store->commit(a, {ok(1, {1.0})});
  store->commit(b, {ok(2, {2.0}), ok(3, {3.0})});
  EXPECT_EQ(store->measured(a).size(), 1u);
  EXPECT_EQ(store->measured(b).size(), 2u);
  expect_db_error([&] { store->commit(12345, {ok(1, {1.0})}); }, "FOREIGN KEY");
}

TEST(SqliteStore, CopyBandwidthRoundTrips) {
  auto store = open_sqlite_store(":memory:");
  DeviceInfo d = h200();
  EXPECT_FALSE(store->copy_bandwidth(d).has_value());
  store->set_copy_bandwidth(d, 4012.5);
  ASSERT_TRUE(store->copy_bandwidth(d).has_value());
  EXPECT_EQ(*store->copy_bandwidth(d), 4012.5);
  store->set_copy_bandwidth(d, 3999.0);
  EXPECT_EQ(*store->copy_bandwidth(d), 3999.0);

  DeviceInfo other = d;
  other.sm_count = 114;
  EXPECT_FALSE(store->copy_bandwidth(other).has_value());
  // A workload on the device keeps the device's bandwidth.
  store->workload(transpose_key());
  EXPECT_EQ(*store->copy_bandwidth(d), 3999.0);
}

TEST(SqliteStore, SummariesFindBestAndBaseline) {
  auto store = open_sqlite_store(":memory:");
  WorkloadKey k = transpose_key();
  int64_t w = store->workload(k);
  store->set_baseline(w, 2);
  store->commit(w, {ok(1, {3.0, 3.0, 3.0}), ok(2, {2.0}), failed(3, Status::kWrongAnswer, "x"),
                    ok(4, {0.5})});
  // 4 was a fluke: its later attempt is slower, and a wrong answer is never best.
  store->commit(w, {ok(4, {1.5, 1.6, 1.4}), failed(5, Status::kWrongAnswer, "fast but wrong")});

  WorkloadKey other = k;
  other.problem_json = R"({"n":16})";
  int64_t w2 = store->workload(other);
  store->commit(w2, {failed(1, Status::kTimeout, "")});

  auto all = store->workloads();
  ASSERT_EQ(all.size(), 2u);
  const WorkloadSummary& s = all[0];
  EXPECT_EQ(s.id, w);
  EXPECT_EQ(s.attempts, 6);
  EXPECT_EQ(s.ok, 3);
  ASSERT_TRUE(s.best.has_value());
  EXPECT_EQ(s.best->config_index, 4u);
  EXPECT_DOUBLE_EQ(s.best->median_ms(), 1.5);
  EXPECT_EQ(s.best->samples_ms.size(), 3u);
  EXPECT_EQ(s.baseline_index, 2u);
  ASSERT_TRUE(s.baseline.has_value());
  EXPECT_EQ(s.baseline->samples_ms, std::vector<double>{2.0});
  EXPECT_FALSE(s.created_at.empty());
  EXPECT_EQ(s.key.spec_hash, k.spec_hash);
  EXPECT_EQ(s.key.source_hash, k.source_hash);
  EXPECT_EQ(s.key.spec_path, k.spec_path);
  EXPECT_EQ(s.key.spec_text, k.spec_text);
  EXPECT_EQ(s.key.kernel_name, k.kernel_name);
  EXPECT_EQ(s.key.problem_json, k.problem_json);
  EXPECT_EQ(s.key.nvrtc_version, k.nvrtc_version);
  EXPECT_EQ(s.key.device.key(), k.device.key());
  EXPECT_EQ(s.key.device.uuid, k.device.uuid);
  EXPECT_EQ(s.key.device.l2_bytes, k.device.l2_bytes);
  EXPECT_EQ(s.key.device.memory_bytes, k.device.memory_bytes);

  const WorkloadSummary& s2 = all[1];
  EXPECT_EQ(s2.attempts, 1);
  EXPECT_EQ(s2.ok, 0);
  EXPECT_FALSE(s2.best.has_value());
  EXPECT_FALSE(s2.baseline.has_value());

  EXPECT_EQ(store->workloads(k.spec_hash).size(), 2u);
  auto one = store->workloads(k.spec_hash, other.problem_json);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].id, w2);
  EXPECT_EQ(store->workloads("", k.problem_json).size(), 1u);
  EXPECT_TRUE(store->workloads("no-such-spec").empty());
}

TEST(SqliteStore, BaselineOfAnUnknownWorkloadIsAnError) {
  auto store = open_sqlite_store(":memory:");
  expect_db_error([&] { store->set_baseline(99, 1); }, "no workload 99");
}

TEST(SqliteStore, CommitIsAllOrNothing) {
  auto store = open_sqlite_store(":memory:");
  int64_t w = store->workload(transpose_key());
  store->commit(w, {ok(1, {1.0})});
  // The schema's CHECK on status rejects the third row, after two have been inserted.
  Measurement bad = ok(9, {0.1});
  bad.status = static_cast<Status>(99);
  expect_db_error(
      [&] {
        store->commit(w, {ok(1, {0.2}), ok(2, {2.0}), bad, ok(3, {3.0})});
      },
      "CHECK constraint");
  auto got = store->measured(w);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].samples_ms, std::vector<double>{1.0});
  EXPECT_EQ(store->workloads()[0].attempts, 1);
  // The failed transaction was rolled back, not left open.
  store->commit(w, {ok(2, {2.0})});
  EXPECT_EQ(store->measured(w).size(), 2u);
}

TEST(SqliteStore, SearchRecordsAreKept) {
  TempDir dir;
  std::string path = dir.file("s.db");
  {
    auto store = open_sqlite_store(path);
    int64_t w = store->workload(transpose_key());
    SearchRecord r;
    r.strategy = "random";
    r.seed = 0xDEADBEEFCAFEull;
    r.evaluated = 120;
    r.reused = 30;
    r.wall_s = 61.5;
    r.compile_s = 40.25;
    r.check_s = 3.0;
    r.time_s = 12.0;
    r.interrupted = true;
    store->record_search(w, r);
    expect_db_error([&] { store->record_search(w + 100, r); }, "FOREIGN KEY");
  }
  RawDb raw(path);
  EXPECT_EQ(raw.text("SELECT count(*) FROM searches"), "1");
  EXPECT_EQ(raw.text("SELECT strategy || ',' || seed || ',' || evaluated || ',' || reused || ',' "
                     "|| wall_s || ',' || compile_s || ',' || check_s || ',' || time_s || ',' "
                     "|| interrupted FROM searches"),
            "random,244837814094590,120,30,61.5,40.25,3.0,12.0,1");
}

TEST(SqliteStore, ReopenResumesAndStaysIntact) {
  TempDir dir;
  std::string path = dir.file("results.db");
  int64_t w = 0;
  {
    auto store = open_sqlite_store(path);
    w = store->workload(transpose_key());
    store->set_baseline(w, 1);
    store->commit(w, {ok(1, {1.0, 1.1}), failed(2, Status::kResourceExceeded, "too many regs")});
    store->set_copy_bandwidth(h200(), 4100.0);
  }
  {
    auto store = open_sqlite_store(path);
    EXPECT_EQ(store->workload(transpose_key()), w);
    auto got = store->measured(w);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].samples_ms, (std::vector<double>{1.0, 1.1}));
    EXPECT_EQ(got[1].message, "too many regs");
    EXPECT_EQ(*store->copy_bandwidth(h200()), 4100.0);
    EXPECT_EQ(store->workloads()[0].baseline_index, 1u);
    store->commit(w, {ok(3, {0.7})});
  }
  auto store = open_sqlite_store(path);
  EXPECT_EQ(store->measured(w).size(), 3u);
  RawDb raw(path);
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.text("PRAGMA foreign_key_check"), "");
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw.text("PRAGMA application_id"), std::to_string(0x47505455));
  EXPECT_EQ(raw.text("PRAGMA user_version"), "7");
}

TEST(SqliteStore, ASchema2DatabaseGainsCompilerWarnings) {
  TempDir dir;
  std::string path = dir.file("old.db");
  int64_t w = 0;
  {
    auto store = open_sqlite_store(path);
    w = store->workload(transpose_key());
    store->commit(w, {ok(1, {1.0})});
  }
  {
    RawDb raw(path);  // as schema 2 left it
    raw.exec("ALTER TABLE measurements DROP COLUMN compiler_warnings");
    raw.exec("ALTER TABLE measurements DROP COLUMN gpu_busy_ms");
    raw.exec("ALTER TABLE searches DROP COLUMN measuring_s");
    raw.exec("ALTER TABLE searches DROP COLUMN gpu_busy_s");
    raw.exec("ALTER TABLE searches DROP COLUMN gpu_idle_share");
    raw.exec("ALTER TABLE measurements DROP COLUMN cut_short");
    raw.exec("ALTER TABLE measurements DROP COLUMN final_rounds");
    for (const char* table : {"measurements", "searches"}) {  // schema 7's provenance
      raw.exec(std::string("ALTER TABLE ") + table + " DROP COLUMN origin_id");
      raw.exec(std::string("ALTER TABLE ") + table + " DROP COLUMN origin_row");
    }
    raw.exec("DROP TABLE identity");
    raw.exec("DROP TABLE origins");
    raw.exec("PRAGMA user_version = 2");
  }
  auto store = open_sqlite_store(path);
  Measurement warned = ok(2, {2.0});
  warned.compiler_warnings = "k.cu(3): warning #20168-D: ignoring pragma";
  store->commit(w, {warned});
  const std::vector<Measurement> got = store->measured(w);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].compiler_warnings, "");
  EXPECT_EQ(got[1].compiler_warnings, warned.compiler_warnings);
  EXPECT_EQ(got[0].cut_short, 0);  // a row from before racing: a full measurement
  EXPECT_EQ(RawDb(path).text("PRAGMA user_version"), "7");
}

TEST(SqliteStore, ASchema3DatabaseGainsGpuBusyTimesAndTheIdleShare) {
  TempDir dir;
  std::string path = dir.file("old.db");
  int64_t w = 0;
  {
    auto store = open_sqlite_store(path);
    w = store->workload(transpose_key());
    store->commit(w, {ok(1, {1.0})});
  }
  {
    RawDb raw(path);  // as schema 3 left it
    raw.exec("ALTER TABLE measurements DROP COLUMN gpu_busy_ms");
    raw.exec("ALTER TABLE searches DROP COLUMN measuring_s");
    raw.exec("ALTER TABLE searches DROP COLUMN gpu_busy_s");
    raw.exec("ALTER TABLE searches DROP COLUMN gpu_idle_share");
    raw.exec("ALTER TABLE measurements DROP COLUMN cut_short");
    raw.exec("ALTER TABLE measurements DROP COLUMN final_rounds");
    for (const char* table : {"measurements", "searches"}) {  // schema 7's provenance
      raw.exec(std::string("ALTER TABLE ") + table + " DROP COLUMN origin_id");
      raw.exec(std::string("ALTER TABLE ") + table + " DROP COLUMN origin_row");
    }
    raw.exec("DROP TABLE identity");
    raw.exec("DROP TABLE origins");
    raw.exec("PRAGMA user_version = 3");
  }
  auto store = open_sqlite_store(path);
  Measurement busy = ok(2, {2.0});
  busy.gpu_busy_ms = 25;
  store->commit(w, {busy});
  SearchRecord record;
  record.strategy = "brute_force";
  record.gpus = 1;
  record.measuring_s = 2;
  record.gpu_busy_s = 1.5;
  store->record_search(w, record);
  const std::vector<Measurement> got = store->measured(w);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_DOUBLE_EQ(got[0].gpu_busy_ms, 0);
  EXPECT_DOUBLE_EQ(got[1].gpu_busy_ms, 25);
  RawDb raw(path);
  EXPECT_EQ(raw.text("PRAGMA user_version"), "7");
  EXPECT_EQ(raw.text("SELECT gpu_idle_share FROM searches"), "0.25");
}

TEST(SqliteStore, TwoStoresOnOneFileShareIt) {
  TempDir dir;
  std::string path = dir.file("shared.db");
  auto a = open_sqlite_store(path);
  auto b = open_sqlite_store(path);
  int64_t w = a->workload(transpose_key());
  EXPECT_EQ(b->workload(transpose_key()), w);
  a->commit(w, {ok(1, {1.0})});
  b->commit(w, {ok(2, {2.0})});
  EXPECT_EQ(a->measured(w).size(), 2u);
  EXPECT_EQ(b->measured(w).size(), 2u);
}

TEST(SqliteStore, ReadOnlyReadsAndRefusesWrites) {
  TempDir dir;
  std::string path = dir.file("r o?#%.db");  // characters a URI must escape
  int64_t w = 0;
  {
    auto store = open_sqlite_store(path);
    w = store->workload(transpose_key());
    store->commit(w, {ok(1, {1.0})});
    store->set_copy_bandwidth(h200(), 4000.0);
  }
  auto store = open_sqlite_store(path, /*read_only=*/true);
  EXPECT_EQ(store->workload(transpose_key()), w);  // found, so nothing to write
  EXPECT_EQ(store->measured(w).size(), 1u);
  EXPECT_EQ(*store->copy_bandwidth(h200()), 4000.0);
  EXPECT_EQ(store->workloads().size(), 1u);

  WorkloadKey unknown = transpose_key();
  unknown.problem_json = "{}";
  expect_db_error([&] { store->workload(unknown); }, "read-only");
  expect_db_error([&] { store->commit(w, {ok(2, {1.0})}); }, "read-only");
  expect_db_error([&] { store->set_baseline(w, 1); }, "read-only");
  expect_db_error([&] { store->set_copy_bandwidth(h200(), 1.0); }, "read-only");
  expect_db_error([&] { store->record_search(w, SearchRecord{}); }, "read-only");
  EXPECT_EQ(open_sqlite_store(path)->measured(w).size(), 1u);
}

TEST(SqliteStore, ReadOnlyOpensAReleaseCopy) {
  TempDir dir;
  std::string path = dir.file("user.db");
  std::string release = dir.file("release.db");
  auto store = open_sqlite_store(path);
  int64_t w = store->workload(transpose_key());
  store->commit(w, {ok(1, {1.0}), ok(2, {0.5})});
  RawDb(path).exec("VACUUM INTO '" + release + "'");

  auto copy = open_sqlite_store(release, /*read_only=*/true);
  auto summaries = copy->workloads();
  ASSERT_EQ(summaries.size(), 1u);
  ASSERT_TRUE(summaries[0].best.has_value());
  EXPECT_EQ(summaries[0].best->config_index, 2u);
}

TEST(SqliteStore, ReadOnlyNeedsAnExistingDatabase) {
  TempDir dir;
  expect_db_error([&] { open_sqlite_store(dir.file("missing.db"), true); }, "missing.db");
  EXPECT_FALSE(fs::exists(dir.file("missing.db")));
  std::ofstream(dir.file("empty.db")).close();
  expect_db_error([&] { open_sqlite_store(dir.file("empty.db"), true); }, "not a gputune database");
}

TEST(SqliteStore, RefusesANonSqliteFile) {
  TempDir dir;
  std::string path = dir.file("notes.txt");
  std::ofstream(path) << std::string(4096, 'x') << "\nthis is not a database\n";
  expect_db_error([&] { open_sqlite_store(path); }, path + ": not a gputune database");
  expect_db_error([&] { open_sqlite_store(path, true); }, path + ": not a gputune database");
}

TEST(SqliteStore, RefusesAnotherApplicationsDatabase) {
  TempDir dir;
  std::string path = dir.file("other.db");
  RawDb(path).exec("PRAGMA application_id = 1234; CREATE TABLE t (x)");
  expect_db_error([&] { open_sqlite_store(path); }, path + ": not a gputune database");

  std::string plain = dir.file("plain.db");  // no application_id, but someone's tables
  RawDb(plain).exec("CREATE TABLE devices (x)");
  expect_db_error([&] { open_sqlite_store(plain); }, plain + ": not a gputune database");
}

TEST(SqliteStore, RefusesANewerSchema) {
  TempDir dir;
  std::string path = dir.file("future.db");
  open_sqlite_store(path);
  RawDb(path).exec("PRAGMA user_version = 99");
  expect_db_error([&] { open_sqlite_store(path); },
                  "was written by a newer gputune (schema 99, this build knows 7)");
  expect_db_error([&] { open_sqlite_store(path, true); }, "schema 99");
}

TEST(SqliteStore, AnEmptyFileBecomesADatabase) {
  TempDir dir;
  std::string path = dir.file("empty.db");
  std::ofstream(path).close();
  auto store = open_sqlite_store(path);
  EXPECT_GT(store->workload(transpose_key()), 0);
}

// Eight processes creating one fresh database at once lost one about 5% of the time: one read
// the application id before another's first commit and its tables after ("not a gputune
// database"), or found the switch to WAL locked ("database is locked").
TEST(SqliteStore, ProcessesCreatingOneFreshDatabaseAtOnceAllOpenIt) {
  TempDir dir;
  constexpr int kRounds = 25, kProcesses = 8;
  int failures = 0;
  std::string first_failure;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.file("fresh_" + std::to_string(round) + ".db");
    const std::string errors = dir.file("errors_" + std::to_string(round));
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
      const pid_t child = fork();
      ASSERT_GE(child, 0);
      if (child == 0) {
        int code = 0;
        try {
          auto store = open_sqlite_store(path);
          store->workload(transpose_key());
        } catch (const std::exception& e) {
          std::ofstream(errors, std::ios::app) << e.what() << "\n";
          code = 1;
        }
        _exit(code);
      }
      children.push_back(child);
    }
    for (const pid_t child : children) {
      int status = 0;
      waitpid(child, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++failures;
        std::ifstream in(errors);
        if (first_failure.empty()) std::getline(in, first_failure);
      }
    }
  }
  EXPECT_EQ(failures, 0) << "first: " << first_failure;
}

// A recording's row put {"evil":1} in place of a variant's config: the config an index was first
// stored with stays, whatever a later attempt (a replay, an import, counters) says.
TEST(SqliteStore, AStoredConfigIsNeverReplaced) {
  auto store = open_sqlite_store(":memory:");
  const int64_t w = store->workload(transpose_key());
  Measurement empty = ok(2, {1.0});
  empty.config.clear();
  store->commit(w, {ok(1, {2.0}), empty});
  Measurement evil = ok(1, {1.0});
  evil.config = R"({"evil":1})";
  Measurement filled = ok(2, {1.5});
  store->commit(w, {evil, filled});
  StoredCounters counters;
  counters.source = "ncu";
  store->store_counters(w, 1, R"({"evil":2})", counters);
  const std::vector<Measurement> got = store->measured(w);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].config, R"({"TILE":1})");
  EXPECT_EQ(got[1].config, R"({"TILE":2})");  // an empty one is filled
}

// A search killed at any moment leaves whole commits only: every batch has kBatch rows.
TEST(SqliteStore, KilledWriterLeavesWholeCommits) {
  TempDir dir;
  std::string path = dir.file("killed.db");
  constexpr int kBatch = 200;
  int64_t w = open_sqlite_store(path)->workload(transpose_key());

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto store = open_sqlite_store(path);
      for (uint64_t round = 0;; ++round) {
        std::vector<Measurement> batch;
        for (int i = 0; i < kBatch; ++i) batch.push_back(ok(round * kBatch + i, {1.0, 2.0}));
        store->commit(w, batch);
      }
    } catch (...) {
    }
    _exit(1);  // never back into the test framework
  }
  auto reader = open_sqlite_store(path, true);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (reader->measured(w).size() < 3 * kBatch && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  reader.reset();

  auto store = open_sqlite_store(path);
  size_t n = store->measured(w).size();
  EXPECT_GE(n, 3u * kBatch);
  EXPECT_EQ(n % kBatch, 0u) << n;
  EXPECT_EQ(store->workloads()[0].attempts, static_cast<int64_t>(n));
  RawDb raw(path);
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace gputune

namespace gputune {
namespace {

TEST(SqliteStore, EveryListedFieldRoundTrips) {
  auto store = open_sqlite_store(":memory:");
  const int64_t w = store->workload(transpose_key());
  const Measurement m = testing::every_field_set();
  store->commit(w, {m});
  const auto measured = store->measured(w);
  ASSERT_EQ(measured.size(), 1u);
  testing::expect_fields(m, measured[0], testing::every_field);
  const auto attempts = store->attempts(w);
  ASSERT_EQ(attempts.size(), 1u);
  testing::expect_fields(m, attempts[0].measurement, testing::every_field);
}

TEST(SqliteStore, CountersAreKeyedByTheVariantsLatestMeasurement) {
  auto store = open_sqlite_store(":memory:");
  const int64_t w = store->workload(transpose_key());
  EXPECT_FALSE(store->counters(w, 1).has_value());
  store->commit(w, {ok(1, {1.0})});
  StoredCounters counters;
  counters.source = "ncu";
  counters.wall_s = 2.5;
  counters.values = {{"smsp__inst_executed.sum", 1e9}, {"gpu__time_duration.sum", 704288}};
  store->store_counters(w, 1, "", counters);
  const auto got = store->counters(w, 1);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->source, "ncu");
  EXPECT_EQ(got->wall_s, 2.5);
  EXPECT_GT(got->measurement_id, 0);
  EXPECT_EQ(got->values, counters.values);
  counters.values["smsp__inst_executed.sum"] = 2e9;  // a later profile wins
  store->store_counters(w, 1, "", counters);
  EXPECT_EQ(store->counters(w, 1)->values.at("smsp__inst_executed.sum"), 2e9);
  store->store_counters(w, 9, "{\"TILE\":32}", counters);  // not measured yet
  EXPECT_EQ(store->counters(w, 9)->measurement_id, 0);
}

}  // namespace
}  // namespace gputune
