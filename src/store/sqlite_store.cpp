#include <sqlite3.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/error.h"
#include "gputune/status.h"
#include "store/merge.h"
#include "store/store.h"

namespace gputune {

namespace {

// "GPTU": lets a file say what it is (`PRAGMA application_id`, `file(1)` knows the field).
constexpr int32_t kApplicationId = 0x47505455;
constexpr int kBusyTimeoutMs = 10000;

struct Migration {
  int version;
  const char* sql;
};

// Append only: a released migration never changes, a new schema is a new entry.
const Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  uuid TEXT NOT NULL,
  cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL,
  sm_count INTEGER NOT NULL,
  l2_bytes INTEGER NOT NULL,
  memory_bytes INTEGER NOT NULL,
  driver_version INTEGER NOT NULL,
  copy_bandwidth_gbs REAL,
  bandwidth_measured_at TEXT
);
CREATE TABLE specs (
  id INTEGER PRIMARY KEY,
  spec_hash TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  path TEXT NOT NULL,
  text TEXT NOT NULL,
  kernel_name TEXT NOT NULL,
  UNIQUE (spec_hash, source_hash)
);
CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  spec_id INTEGER NOT NULL REFERENCES specs (id),
  problem_json TEXT NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  nvrtc_version TEXT NOT NULL,
  baseline_index INTEGER,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE (spec_id, problem_json, device_id, nvrtc_version)
);
CREATE INDEX workloads_by_device ON workloads (device_id);
CREATE TABLE variants (
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  config_index INTEGER NOT NULL,
  config_json TEXT NOT NULL,
  UNIQUE (workload_id, config_index)
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  variant_id INTEGER NOT NULL REFERENCES variants (id),
  status TEXT NOT NULL CHECK (status IN ('ok', 'constraint', 'compile_error',
      'resource_exceeded', 'runtime_error', 'timeout', 'wrong_answer')),
  message TEXT NOT NULL,
  samples_json TEXT NOT NULL,
  median_ms REAL,
  spread REAL,
  compile_ms REAL,
  registers INTEGER NOT NULL,
  shared_bytes INTEGER NOT NULL,
  spill_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX measurements_by_variant ON measurements (variant_id, id);
CREATE TABLE searches (
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  strategy TEXT NOT NULL,
  seed INTEGER NOT NULL,
  evaluated INTEGER NOT NULL,
  reused INTEGER NOT NULL,
  wall_s REAL,
  compile_s REAL,
  check_s REAL,
  time_s REAL,
  interrupted INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX searches_by_workload ON searches (workload_id);
)sql"},
    // Where a variant's GPU time went, and how a search ran (module cache, workers).
    {2, R"sql(
ALTER TABLE measurements ADD COLUMN check_ms REAL;
ALTER TABLE measurements ADD COLUMN time_ms REAL;
ALTER TABLE searches ADD COLUMN cache_hits INTEGER;
ALTER TABLE searches ADD COLUMN jobs INTEGER;
ALTER TABLE searches ADD COLUMN gpus INTEGER;
ALTER TABLE searches ADD COLUMN worker_restarts INTEGER;
)sql"},
    // What the compiler warned about in compiles that succeeded.
    {3, R"sql(
ALTER TABLE measurements ADD COLUMN compiler_warnings TEXT;
)sql"},
    // How busy the GPU was: each variant's kernel time, and the search's idle share.
    {4, R"sql(
ALTER TABLE measurements ADD COLUMN gpu_busy_ms REAL;
ALTER TABLE searches ADD COLUMN measuring_s REAL;
ALTER TABLE searches ADD COLUMN gpu_busy_s REAL;
ALTER TABLE searches ADD COLUMN gpu_idle_share REAL;
)sql"},
    // Hardware counters of one launch of a variant (gputune analyze, --strategy bottleneck),
    // keyed by the measurement they explain (the variant's latest when they were taken).
    {5, R"sql(
CREATE TABLE IF NOT EXISTS profiles (
  id INTEGER PRIMARY KEY,
  variant_id INTEGER NOT NULL REFERENCES variants (id),
  measurement_id INTEGER REFERENCES measurements (id),
  source TEXT NOT NULL,
  wall_s REAL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX IF NOT EXISTS profiles_by_variant ON profiles (variant_id, id);
CREATE TABLE IF NOT EXISTS profile_counters (
  profile_id INTEGER NOT NULL REFERENCES profiles (id),
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (profile_id, metric)
);
)sql"},
    // Racing: timings cut short, and the final re-measurement of the top few.
    {6, R"sql(
ALTER TABLE measurements ADD COLUMN cut_short INTEGER;
ALTER TABLE measurements ADD COLUMN final_rounds INTEGER;
)sql"},
    // Provenance for merged databases (gputune merge): each file's identity and the host that
    // created it, the files merged in, and for a copied row the file and row it came from.
    {7, R"sql(
CREATE TABLE identity (
  database_id TEXT NOT NULL,
  host TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE TABLE origins (
  id INTEGER PRIMARY KEY,
  database_id TEXT NOT NULL,
  path TEXT NOT NULL,
  host TEXT NOT NULL,
  created_at TEXT NOT NULL,
  merged_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE (database_id, path)
);
-- origin_id is an origins.id; merge_database keeps that true. No REFERENCES clause: SQLite
-- cannot drop a column that has one.
ALTER TABLE measurements ADD COLUMN origin_id INTEGER;
ALTER TABLE measurements ADD COLUMN origin_row INTEGER;
ALTER TABLE searches ADD COLUMN origin_id INTEGER;
ALTER TABLE searches ADD COLUMN origin_row INTEGER;
)sql"},
};

constexpr int kSchemaVersion = 7;

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// SQLite's URI syntax reserves '%', '?' and '#'; encoding all but the plainest bytes is simplest.
std::string uri_escape(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

// Stored as the same 64 bits: SQLite integers are signed.
int64_t to_db(uint64_t index) { return static_cast<int64_t>(index); }
uint64_t from_db(int64_t value) { return static_cast<uint64_t>(value); }

class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      std::string message = sqlite3_errmsg(db);
      sqlite3_finalize(stmt_);
      throw Error(ErrorCode::kDb, path_ + ": cannot prepare a statement: " + message);
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, int64_t value) { return check(sqlite3_bind_int64(stmt_, i, value)); }
  Statement& bind(int i, int value) { return bind(i, static_cast<int64_t>(value)); }
  // SQLite turns NaN into NULL anyway; saying so keeps the intent visible.
  Statement& bind(int i, double value) {
    return check(std::isnan(value) ? sqlite3_bind_null(stmt_, i)
                                   : sqlite3_bind_double(stmt_, i, value));
  }
  Statement& bind(int i, const std::string& value) {
    return check(sqlite3_bind_text(stmt_, i, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT));
  }

  // True while there is a row to read.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(ErrorCode::kDb, path_ + ": " + sqlite3_errmsg(db_));
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  int64_t int64(int i) const { return sqlite3_column_int64(stmt_, i); }
  int integer(int i) const { return sqlite3_column_int(stmt_, i); }
  double real(int i) const {
    return is_null(i) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(stmt_, i);
  }
  std::string text(int i) const {
    const unsigned char* p = sqlite3_column_text(stmt_, i);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(stmt_, i)));
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) {
      throw Error(ErrorCode::kDb, path_ + ": cannot bind a value: " + sqlite3_errmsg(db_));
    }
    return *this;
  }

  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const std::string& sql) {
  char* raw = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &raw) != SQLITE_OK) {
    std::string message = raw ? raw : sqlite3_errmsg(db);
    sqlite3_free(raw);
    throw Error(ErrorCode::kDb, path + ": " + message);
  }
}

// BEGIN IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout)
// instead of failing halfway through with SQLITE_BUSY on the lock upgrade.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
    exec(db_, path_, "BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    exec(db_, path_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

std::string samples_to_json(const std::vector<double>& samples) {
  nlohmann::json array = nlohmann::json::array();
  for (double s : samples) array.push_back(s);
  return array.dump();
}

std::vector<double> samples_from_json(const std::string& text, const std::string& path) {
  std::vector<double> samples;
  try {
    nlohmann::json array = nlohmann::json::parse(text);
    for (const auto& s : array) {
      // JSON has no NaN or infinity: dump() wrote them as null.
      samples.push_back(s.is_null() ? std::numeric_limits<double>::quiet_NaN() : s.get<double>());
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::kDb, path + ": corrupt samples_json: " + e.what());
  }
  return samples;
}

// The SELECT list of a measurement with its variant (aliases v and m), one column per field of
// measurement_fields(), in that order.
std::string measurement_columns() {
  std::string out;
  for (const MeasurementField& field : measurement_fields()) {
    if (!out.empty()) out += ", ";
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        out += "v.config_index";
        break;
      case FieldKind::kConfig:
        out += "v.config_json";
        break;
      case FieldKind::kSamples:
        out += "m.samples_json";
        break;
      default:
        out += std::string("m.") + field.name;
    }
  }
  return out;
}

// The measurements table's columns that commit() writes after variant_id: every field but the
// variant's own (index and config), and the samples' median and spread beside them.
std::vector<std::string> measurement_insert_columns() {
  std::vector<std::string> out;
  for (const MeasurementField& field : measurement_fields()) {
    if (field.kind == FieldKind::kConfigIndex || field.kind == FieldKind::kConfig) continue;
    if (field.kind == FieldKind::kSamples) {
      out.insert(out.end(), {"samples_json", "median_ms", "spread"});
    } else {
      out.push_back(field.name);
    }
  }
  return out;
}

std::string measurement_insert_sql() {
  std::string columns = "variant_id", values = "?1";
  int parameter = 1;
  for (const std::string& column : measurement_insert_columns()) {
    columns += ", " + column;
    values += ", ?" + std::to_string(++parameter);
  }
  return "INSERT INTO measurements (" + columns + ") VALUES (" + values + ")";
}

Measurement read_measurement(const Statement& s, int first, const std::string& path) {
  Measurement m;
  int column = first;
  for (const MeasurementField& field : measurement_fields()) {
    const int c = column++;
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        field.of<uint64_t>(m) = from_db(s.int64(c));
        break;
      case FieldKind::kConfig:
      case FieldKind::kText:
        field.of<std::string>(m) = s.text(c);
        break;
      case FieldKind::kStatus:
        field.of<Status>(m) = status_from_name(s.text(c));
        break;
      case FieldKind::kSamples:
        field.of<std::vector<double>>(m) = samples_from_json(s.text(c), path);
        break;
      case FieldKind::kReal:
        field.of<double>(m) = s.is_null(c) ? field.missing : s.real(c);
        break;
      case FieldKind::kInteger:
        field.of<int>(m) = s.integer(c);
        break;
    }
  }
  return m;
}

// Binds a measurement's columns of measurement_insert_columns(), from parameter 2 on.
void bind_measurement(Statement& s, const Measurement& m) {
  int parameter = 1;
  for (const MeasurementField& field : measurement_fields()) {
    switch (field.kind) {
      case FieldKind::kConfigIndex:
      case FieldKind::kConfig:
        break;
      case FieldKind::kStatus:
        s.bind(++parameter, std::string(status_name(field.of<Status>(m))));
        break;
      case FieldKind::kSamples:
        s.bind(++parameter, samples_to_json(field.of<std::vector<double>>(m)));
        s.bind(++parameter, m.median_ms());
        s.bind(++parameter, m.spread());
        break;
      case FieldKind::kReal:
        s.bind(++parameter, field.of<double>(m));
        break;
      case FieldKind::kInteger:
        s.bind(++parameter, field.of<int>(m));
        break;
      case FieldKind::kText:
        s.bind(++parameter, field.of<std::string>(m));
        break;
    }
  }
}

class SqliteStore : public Store {
 public:
  SqliteStore(const std::string& path, bool read_only) : path_(path), read_only_(read_only) {
    open();
  }

  int64_t workload(const WorkloadKey& key) override {
    if (auto id = find_workload(key)) return *id;
    require_writable("create a workload");
    Transaction tx(db(), path_);
    int64_t device_id = upsert_device(key.device);
    Statement spec(db(), path_,
                   "INSERT INTO specs (spec_hash, source_hash, path, text, kernel_name) "
                   "VALUES (?1, ?2, ?3, ?4, ?5) "
                   "ON CONFLICT (spec_hash, source_hash) DO UPDATE SET path = excluded.path "
                   "RETURNING id");
    spec.bind(1, key.spec_hash).bind(2, key.source_hash).bind(3, key.spec_path);
    spec.bind(4, key.spec_text).bind(5, key.kernel_name);
    if (!spec.step()) throw Error(ErrorCode::kDb, path_ + ": spec upsert returned no row");
    int64_t spec_id = spec.int64(0);
    spec.reset();

    Statement insert(db(), path_,
                     "INSERT INTO workloads (spec_id, problem_json, device_id, nvrtc_version) "
                     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING");
    insert.bind(1, spec_id).bind(2, key.problem_json).bind(3, device_id);
    insert.bind(4, key.nvrtc_version).run();
    Statement select(db(), path_,
                     "SELECT id FROM workloads WHERE spec_id = ?1 AND problem_json = ?2 "
                     "AND device_id = ?3 AND nvrtc_version = ?4");
    select.bind(1, spec_id).bind(2, key.problem_json).bind(3, device_id);
    select.bind(4, key.nvrtc_version);
    if (!select.step()) throw Error(ErrorCode::kDb, path_ + ": workload vanished on insert");
    int64_t id = select.int64(0);
    select.reset();
    tx.commit();
    return id;
  }

  void set_baseline(int64_t workload, uint64_t config_index) override {
    require_writable("set a baseline");
    Transaction tx(db(), path_);
    Statement update(db(), path_, "UPDATE workloads SET baseline_index = ?1 WHERE id = ?2");
    update.bind(1, to_db(config_index)).bind(2, workload).run();
    if (sqlite3_changes(db()) == 0) {
      throw Error(ErrorCode::kDb, path_ + ": no workload " + std::to_string(workload));
    }
    tx.commit();
  }

  void commit(int64_t workload, const std::vector<Measurement>& measurements) override {
    require_writable("store measurements");
    if (measurements.empty()) return;
    Transaction tx(db(), path_);
    // A config's JSON is the same on every attempt; an empty one never overwrites a known one.
    Statement variant(db(), path_,
                      "INSERT INTO variants (workload_id, config_index, config_json) "
                      "VALUES (?1, ?2, ?3) ON CONFLICT (workload_id, config_index) DO UPDATE "
                      "SET config_json = CASE WHEN excluded.config_json = '' THEN config_json "
                      "ELSE excluded.config_json END RETURNING id");
    static const std::string kInsert = measurement_insert_sql();
    Statement insert(db(), path_, kInsert.c_str());
    for (const Measurement& m : measurements) {
      variant.bind(1, workload).bind(2, to_db(m.config_index)).bind(3, m.config);
      if (!variant.step()) throw Error(ErrorCode::kDb, path_ + ": variant upsert returned no row");
      int64_t variant_id = variant.int64(0);
      variant.reset();

      insert.bind(1, variant_id);
      bind_measurement(insert, m);
      insert.run();
      insert.reset();
    }
    tx.commit();
  }

  std::vector<Measurement> measured(int64_t workload) const override {
    Statement s(db(), path_,
                ("SELECT " + measurement_columns() +
                 " FROM variants v JOIN measurements m ON m.id = "
                 "(SELECT MAX(id) FROM measurements WHERE variant_id = v.id) "
                 "WHERE v.workload_id = ?1 ORDER BY v.config_index")
                    .c_str());
    s.bind(1, workload);
    std::vector<Measurement> out;
    while (s.step()) out.push_back(read_measurement(s, 0, path_));
    return out;
  }

  std::vector<Attempt> attempts(int64_t workload) const override {
    Statement s(db(), path_,
                ("SELECT m.id, m.created_at, " + measurement_columns() +
                 " FROM variants v JOIN measurements m ON m.variant_id = v.id "
                 "WHERE v.workload_id = ?1 ORDER BY m.id")
                    .c_str());
    s.bind(1, workload);
    std::vector<Attempt> out;
    while (s.step()) out.push_back({s.int64(0), s.text(1), read_measurement(s, 2, path_)});
    return out;
  }

  void store_counters(int64_t workload, uint64_t config_index, const std::string& config_json,
                      const StoredCounters& counters) override {
    require_writable("store counters");
    Transaction tx(db(), path_);
    Statement variant(db(), path_,
                      "INSERT INTO variants (workload_id, config_index, config_json) "
                      "VALUES (?1, ?2, ?3) ON CONFLICT (workload_id, config_index) DO UPDATE "
                      "SET config_json = CASE WHEN excluded.config_json = '' THEN config_json "
                      "ELSE excluded.config_json END RETURNING id");
    variant.bind(1, workload).bind(2, to_db(config_index)).bind(3, config_json);
    if (!variant.step()) throw Error(ErrorCode::kDb, path_ + ": variant upsert returned no row");
    const int64_t variant_id = variant.int64(0);
    variant.reset();
    Statement profile(db(), path_,
                      "INSERT INTO profiles (variant_id, measurement_id, source, wall_s) "
                      "VALUES (?1, (SELECT MAX(id) FROM measurements WHERE variant_id = ?1), "
                      "?2, ?3) RETURNING id");
    profile.bind(1, variant_id).bind(2, counters.source).bind(3, counters.wall_s);
    if (!profile.step()) throw Error(ErrorCode::kDb, path_ + ": profile insert returned no row");
    const int64_t profile_id = profile.int64(0);
    profile.reset();
    Statement value(db(), path_,
                    "INSERT INTO profile_counters (profile_id, metric, value) VALUES (?1, ?2, ?3)");
    for (const auto& [metric, v] : counters.values) {
      value.bind(1, profile_id).bind(2, metric).bind(3, v).run();
      value.reset();
    }
    tx.commit();
  }

  std::optional<StoredCounters> counters(int64_t workload, uint64_t config_index) const override {
    Statement p(db(), path_,
                "SELECT p.id, p.source, p.wall_s, p.measurement_id FROM profiles p JOIN variants v "
                "ON v.id = p.variant_id WHERE v.workload_id = ?1 AND v.config_index = ?2 "
                "ORDER BY p.id DESC LIMIT 1");
    p.bind(1, workload).bind(2, to_db(config_index));
    if (!p.step()) return std::nullopt;
    StoredCounters out;
    const int64_t profile_id = p.int64(0);
    out.source = p.text(1);
    out.wall_s = p.is_null(2) ? 0 : p.real(2);
    out.measurement_id = p.is_null(3) ? 0 : p.int64(3);
    Statement v(db(), path_, "SELECT metric, value FROM profile_counters WHERE profile_id = ?1");
    v.bind(1, profile_id);
    while (v.step()) out.values[v.text(0)] = v.real(1);
    return out;
  }

  std::map<uint64_t, StoredCounters> all_counters(int64_t workload) const override {
    Statement s(db(), path_,
                "SELECT DISTINCT v.config_index FROM profiles p JOIN variants v "
                "ON v.id = p.variant_id WHERE v.workload_id = ?1 ORDER BY v.config_index");
    s.bind(1, workload);
    std::vector<uint64_t> indices;
    while (s.step()) indices.push_back(static_cast<uint64_t>(s.int64(0)));
    std::map<uint64_t, StoredCounters> out;
    for (uint64_t index : indices) {
      if (auto counters = this->counters(workload, index)) out[index] = std::move(*counters);
    }
    return out;
  }

  void record_search(int64_t workload, const SearchRecord& r) override {
    require_writable("record a search");
    Transaction tx(db(), path_);
    Statement s(db(), path_,
                "INSERT INTO searches (workload_id, strategy, seed, evaluated, reused, wall_s, "
                "compile_s, check_s, time_s, interrupted, cache_hits, jobs, gpus, "
                "worker_restarts, measuring_s, gpu_busy_s, gpu_idle_share) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
                "?17)");
    s.bind(1, workload).bind(2, r.strategy).bind(3, to_db(r.seed)).bind(4, r.evaluated);
    s.bind(5, r.reused).bind(6, r.wall_s).bind(7, r.compile_s).bind(8, r.check_s);
    s.bind(9, r.time_s).bind(10, r.interrupted ? 1 : 0).bind(11, r.cache_hits);
    s.bind(12, r.jobs).bind(13, r.gpus).bind(14, r.worker_restarts).bind(15, r.measuring_s);
    s.bind(16, r.gpu_busy_s).bind(17, r.gpu_idle_share()).run();
    tx.commit();
  }

  std::optional<double> copy_bandwidth(const DeviceInfo& device) const override {
    Statement s(db(), path_, "SELECT copy_bandwidth_gbs FROM devices WHERE key = ?1");
    s.bind(1, device.key());
    if (!s.step() || s.is_null(0)) return std::nullopt;
    return s.real(0);
  }

  void set_copy_bandwidth(const DeviceInfo& device, double gbs) override {
    require_writable("store a copy bandwidth");
    Transaction tx(db(), path_);
    int64_t id = upsert_device(device);
    Statement s(db(), path_,
                "UPDATE devices SET copy_bandwidth_gbs = ?1, "
                "bandwidth_measured_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?2");
    s.bind(1, gbs).bind(2, id).run();
    tx.commit();
  }

  std::vector<WorkloadSummary> workloads(const std::string& spec_hash,
                                         const std::string& problem_json) const override {
    // attempts: every measurement row; ok: configs whose latest attempt is ok.
    Statement s(db(), path_, R"sql(
WITH latest AS (
  SELECT v.workload_id, v.config_index, m.id AS measurement_id, m.status, m.median_ms,
         m.cut_short
  FROM variants v JOIN measurements m
    ON m.id = (SELECT MAX(id) FROM measurements WHERE variant_id = v.id)
)
SELECT w.id, s.spec_hash, s.source_hash, s.path, s.text, s.kernel_name, w.problem_json,
       d.name, d.uuid, d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes, d.memory_bytes,
       d.driver_version, w.nvrtc_version, w.baseline_index, w.created_at,
       (SELECT COUNT(*) FROM measurements m JOIN variants v ON m.variant_id = v.id
         WHERE v.workload_id = w.id),
       (SELECT COUNT(*) FROM latest l WHERE l.workload_id = w.id AND l.status = 'ok'),
       (SELECT l.measurement_id FROM latest l
         WHERE l.workload_id = w.id AND l.status = 'ok' AND l.median_ms IS NOT NULL
           AND COALESCE(l.cut_short, 0) = 0
         ORDER BY l.median_ms, l.config_index LIMIT 1),
       (SELECT l.measurement_id FROM latest l
         WHERE l.workload_id = w.id AND l.config_index = w.baseline_index)
FROM workloads w JOIN specs s ON s.id = w.spec_id JOIN devices d ON d.id = w.device_id
WHERE (?1 = '' OR s.spec_hash = ?1) AND (?2 = '' OR w.problem_json = ?2)
ORDER BY w.id
)sql");
    s.bind(1, spec_hash).bind(2, problem_json);
    std::vector<WorkloadSummary> out;
    while (s.step()) {
      WorkloadSummary w;
      w.id = s.int64(0);
      w.key.spec_hash = s.text(1);
      w.key.source_hash = s.text(2);
      w.key.spec_path = s.text(3);
      w.key.spec_text = s.text(4);
      w.key.kernel_name = s.text(5);
      w.key.problem_json = s.text(6);
      w.key.device.name = s.text(7);
      w.key.device.uuid = s.text(8);
      w.key.device.cc_major = s.integer(9);
      w.key.device.cc_minor = s.integer(10);
      w.key.device.sm_count = s.integer(11);
      w.key.device.l2_bytes = s.int64(12);
      w.key.device.memory_bytes = s.int64(13);
      w.key.device.driver_version = s.integer(14);
      w.key.nvrtc_version = s.text(15);
      if (!s.is_null(16)) w.baseline_index = from_db(s.int64(16));
      w.created_at = s.text(17);
      w.attempts = s.int64(18);
      w.ok = s.int64(19);
      if (!s.is_null(20)) w.best = load_measurement(s.int64(20));
      if (!s.is_null(21)) w.baseline = load_measurement(s.int64(21));
      out.push_back(std::move(w));
    }
    return out;
  }

 private:
  sqlite3* db() const { return db_.get(); }

  void require_writable(const char* what) const {
    if (read_only_) {
      throw Error(ErrorCode::kDb, path_ + ": opened read-only, cannot " + std::string(what));
    }
  }

  Error not_gputune(const std::string& why) const {
    return Error(ErrorCode::kDb, path_ + ": not a gputune database (" + why + ")");
  }

  void open() {
    std::string name = read_only_ ? "file:" + uri_escape(path_) + "?mode=ro" : path_;
    int flags = read_only_ ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                           : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
    db_.reset(raw);  // SQLite hands back a handle to close even when the open fails.
    if (rc != SQLITE_OK) {
      throw Error(ErrorCode::kDb, path_ + ": cannot open database: " +
                                      (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    sqlite3_extended_result_codes(db(), 1);
    sqlite3_busy_timeout(db(), kBusyTimeoutMs);

    // The first read of the file is where a non-SQLite file shows itself.
    int64_t application_id = 0;
    try {
      application_id = pragma_int("application_id");
    } catch (const Error&) {
      if ((sqlite3_errcode(db()) & 0xff) == SQLITE_NOTADB) {
        throw not_gputune("not an SQLite file");
      }
      throw;
    }
    if (application_id != 0 && application_id != kApplicationId) {
      throw not_gputune("application_id is " + std::to_string(application_id));
    }
    if (application_id == 0 && has_tables()) throw not_gputune("it holds other tables");
    int version = static_cast<int>(pragma_int("user_version"));
    if (version > kSchemaVersion) {
      throw Error(ErrorCode::kDb, path_ + ": was written by a newer gputune (schema " +
                                      std::to_string(version) + ", this build knows " +
                                      std::to_string(kSchemaVersion) + ")");
    }

    exec(db(), path_, "PRAGMA foreign_keys = ON");
    if (read_only_) {
      if (version < kSchemaVersion) {
        throw Error(ErrorCode::kDb,
                    path_ + (version == 0 ? ": not a gputune database (empty)"
                                          : ": has schema " + std::to_string(version) +
                                                "; open it writable once to upgrade it"));
      }
      return;
    }
    if (path_ != ":memory:" && !path_.empty()) {
      Statement wal(db(), path_, "PRAGMA journal_mode = WAL");
      if (!wal.step() || wal.text(0) != "wal") {
        throw Error(ErrorCode::kDb, path_ + ": cannot switch to WAL journal mode");
      }
    }
    exec(db(), path_, "PRAGMA synchronous = NORMAL");
    migrate();
    ensure_identity();
  }

  // Every file gets a random id and the host that created it (or first upgraded it), which a
  // merge records as the provenance of what it copies. A copied file keeps its id: merges match
  // rows by content, not by this id.
  void ensure_identity() {
    Transaction tx(db(), path_);
    Statement s(db(), path_,
                "INSERT INTO identity (database_id, host) SELECT lower(hex(randomblob(16))), ?1 "
                "WHERE NOT EXISTS (SELECT 1 FROM identity)");
    s.bind(1, host_name()).run();
    tx.commit();
  }

  int64_t pragma_int(const char* name) const {
    Statement s(db(), path_, (std::string("PRAGMA ") + name).c_str());
    return s.step() ? s.int64(0) : 0;
  }

  bool has_tables() const {
    Statement s(db(), path_, "SELECT 1 FROM sqlite_schema LIMIT 1");
    return s.step();
  }

  void migrate() {
    for (const Migration& migration : kMigrations) {
      Transaction tx(db(), path_);
      // Read again under the write lock: another process may have migrated meanwhile.
      if (pragma_int("user_version") >= migration.version) continue;
      exec(db(), path_, migration.sql);
      // PRAGMAs take no bound parameters; both values are constants of this file.
      exec(db(), path_, "PRAGMA application_id = " + std::to_string(kApplicationId));
      exec(db(), path_, "PRAGMA user_version = " + std::to_string(migration.version));
      tx.commit();
    }
  }

  std::optional<int64_t> find_workload(const WorkloadKey& key) const {
    Statement s(db(), path_,
                "SELECT w.id FROM workloads w JOIN specs s ON s.id = w.spec_id "
                "JOIN devices d ON d.id = w.device_id "
                "WHERE s.spec_hash = ?1 AND s.source_hash = ?2 AND w.problem_json = ?3 "
                "AND d.key = ?4 AND w.nvrtc_version = ?5");
    s.bind(1, key.spec_hash).bind(2, key.source_hash).bind(3, key.problem_json);
    s.bind(4, key.device.key()).bind(5, key.nvrtc_version);
    if (!s.step()) return std::nullopt;
    return s.int64(0);
  }

  // Inside a transaction. Refreshes what the key leaves out (uuid, sizes); keeps the bandwidth.
  int64_t upsert_device(const DeviceInfo& d) {
    Statement s(db(), path_,
                "INSERT INTO devices (key, name, uuid, cc_major, cc_minor, sm_count, l2_bytes, "
                "memory_bytes, driver_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                "ON CONFLICT (key) DO UPDATE SET uuid = excluded.uuid, "
                "l2_bytes = excluded.l2_bytes, memory_bytes = excluded.memory_bytes "
                "RETURNING id");
    s.bind(1, d.key()).bind(2, d.name).bind(3, d.uuid).bind(4, d.cc_major).bind(5, d.cc_minor);
    s.bind(6, d.sm_count).bind(7, d.l2_bytes).bind(8, d.memory_bytes).bind(9, d.driver_version);
    if (!s.step()) throw Error(ErrorCode::kDb, path_ + ": device upsert returned no row");
    int64_t id = s.int64(0);
    s.reset();
    return id;
  }

  Measurement load_measurement(int64_t measurement_id) const {
    Statement s(db(), path_,
                ("SELECT " + measurement_columns() +
                 " FROM measurements m JOIN variants v ON v.id = m.variant_id WHERE m.id = ?1")
                    .c_str());
    s.bind(1, measurement_id);
    if (!s.step()) {
      throw Error(ErrorCode::kDb, path_ + ": no measurement " + std::to_string(measurement_id));
    }
    return read_measurement(s, 0, path_);
  }

  std::string path_;
  bool read_only_;
  DbHandle db_;

  friend class DatabaseMerge;
};

}  // namespace

std::unique_ptr<Store> open_sqlite_store(const std::string& path, bool read_only) {
  return std::make_unique<SqliteStore>(path, read_only);
}

namespace {

// An ok measurement beats one that is not; of two ok ones the lower median wins; a tie keeps
// what is there.
bool better(const std::string& status, double median, const std::string& than_status,
            double than_median) {
  if (status != "ok") return false;
  if (than_status != "ok" || std::isnan(than_median)) return true;
  return !std::isnan(median) && median < than_median;
}

// The input is attached to the output's connection as `src`; everything happens in the output's
// transaction.
class DatabaseMerge {
 public:
  DatabaseMerge(SqliteStore& out, const std::string& input) : out_(out), input_(input) {}

  MergeCounts run() {
    sqlite3* db = out_.db();
    const std::string& path = out_.path_;
    {
      Statement attach(db, path, "ATTACH DATABASE ?1 AS src");
      attach.bind(1, input_).run();
    }
    MergeCounts counts;
    try {
      Transaction tx(db, path);
      counts = merge();
      tx.commit();
    } catch (...) {
      sqlite3_exec(db, "DETACH DATABASE src", nullptr, nullptr, nullptr);
      throw;
    }
    exec(db, path, "DETACH DATABASE src");
    return counts;
  }

 private:
  sqlite3* db() const { return out_.db(); }
  const std::string& path() const { return out_.path_; }

  MergeCounts merge() {
    MergeCounts counts;
    counts.input = input_;
    {
      Statement s(db(), path(), "SELECT database_id, host, created_at FROM src.identity");
      if (!s.step()) throw Error(ErrorCode::kDb, input_ + ": has no identity row");
      counts.host = s.text(1);
      counts.created_at = s.text(2);
      input_origin_ = upsert_origin(s.text(0), absolute(input_), s.text(1), s.text(2));
    }
    measurement_columns_ = copied_columns("measurements");
    search_columns_ = copied_columns("searches");
    Statement workloads(db(), path(), R"sql(
SELECT w.id, s.spec_hash, s.source_hash, s.path, s.text, s.kernel_name, w.problem_json,
       d.key, w.nvrtc_version, w.baseline_index, w.created_at, d.id, d.copy_bandwidth_gbs,
       d.bandwidth_measured_at
FROM src.workloads w JOIN src.specs s ON s.id = w.spec_id JOIN src.devices d ON d.id = w.device_id
ORDER BY w.id)sql");
    while (workloads.step()) {
      const int64_t device = copy_device(workloads.int64(11));
      Statement spec(db(), path(),
                     "INSERT INTO main.specs (spec_hash, source_hash, path, text, kernel_name) "
                     "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (spec_hash, source_hash) "
                     "DO UPDATE SET path = path RETURNING id");
      spec.bind(1, workloads.text(1)).bind(2, workloads.text(2)).bind(3, workloads.text(3));
      spec.bind(4, workloads.text(4)).bind(5, workloads.text(5));
      if (!spec.step()) throw Error(ErrorCode::kDb, path() + ": spec upsert returned no row");
      const int64_t spec_id = spec.int64(0);
      spec.reset();

      Statement insert(db(), path(),
                       "INSERT INTO main.workloads (spec_id, problem_json, device_id, "
                       "nvrtc_version, baseline_index, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                       "ON CONFLICT DO NOTHING");
      insert.bind(1, spec_id).bind(2, workloads.text(6)).bind(3, device);
      insert.bind(4, workloads.text(8));
      if (workloads.is_null(9)) {
        insert.bind(5, std::numeric_limits<double>::quiet_NaN());
      } else {
        insert.bind(5, workloads.int64(9));
      }
      insert.bind(6, workloads.text(10)).run();
      counts.workloads_added += sqlite3_changes(db());
      Statement select(db(), path(),
                       "SELECT id FROM main.workloads WHERE spec_id = ?1 AND problem_json = ?2 "
                       "AND device_id = ?3 AND nvrtc_version = ?4");
      select.bind(1, spec_id).bind(2, workloads.text(6)).bind(3, device);
      select.bind(4, workloads.text(8));
      if (!select.step()) throw Error(ErrorCode::kDb, path() + ": workload vanished on merge");
      const int64_t workload = select.int64(0);
      select.reset();
      if (!workloads.is_null(9)) {
        Statement baseline(db(), path(),
                           "UPDATE main.workloads SET baseline_index = ?1 "
                           "WHERE id = ?2 AND baseline_index IS NULL");
        baseline.bind(1, workloads.int64(9)).bind(2, workload).run();
      }
      merge_variants(workloads.int64(0), workload, counts);
      merge_searches(workloads.int64(0), workload, counts);
    }
    return counts;
  }

  // Keeps the output's bandwidth where it has one.
  int64_t copy_device(int64_t src_device) {
    Statement s(db(), path(), R"sql(
INSERT INTO main.devices (key, name, uuid, cc_major, cc_minor, sm_count, l2_bytes, memory_bytes,
                          driver_version, copy_bandwidth_gbs, bandwidth_measured_at)
SELECT key, name, uuid, cc_major, cc_minor, sm_count, l2_bytes, memory_bytes, driver_version,
       copy_bandwidth_gbs, bandwidth_measured_at FROM src.devices WHERE id = ?1
ON CONFLICT (key) DO UPDATE SET
  copy_bandwidth_gbs = coalesce(copy_bandwidth_gbs, excluded.copy_bandwidth_gbs),
  bandwidth_measured_at = coalesce(bandwidth_measured_at, excluded.bandwidth_measured_at)
RETURNING id)sql");
    s.bind(1, src_device);
    if (!s.step()) throw Error(ErrorCode::kDb, path() + ": device upsert returned no row");
    const int64_t id = s.int64(0);
    s.reset();
    return id;
  }

  struct SourceRow {
    int64_t id = 0;
    std::string status, created_at;
    double median = 0;
    std::optional<int64_t> origin_id;
    int64_t origin_row = 0;
  };

  void merge_variants(int64_t src_workload, int64_t workload, MergeCounts& counts) {
    Statement variants(db(), path(),
                       "SELECT id, config_index, config_json FROM src.variants "
                       "WHERE workload_id = ?1 ORDER BY config_index");
    variants.bind(1, src_workload);
    while (variants.step()) {
      Statement upsert(db(), path(),
                       "INSERT INTO main.variants (workload_id, config_index, config_json) "
                       "VALUES (?1, ?2, ?3) ON CONFLICT (workload_id, config_index) DO UPDATE "
                       "SET config_json = CASE WHEN config_json = '' THEN excluded.config_json "
                       "ELSE config_json END RETURNING id");
      upsert.bind(1, workload).bind(2, variants.int64(1)).bind(3, variants.text(2));
      if (!upsert.step()) throw Error(ErrorCode::kDb, path() + ": variant upsert returned no row");
      const int64_t variant = upsert.int64(0);
      upsert.reset();

      std::vector<SourceRow> rows = source_rows(variants.int64(0));
      if (rows.empty()) continue;
      Statement latest(db(), path(),
                       "SELECT status, median_ms FROM main.measurements WHERE variant_id = ?1 "
                       "ORDER BY id DESC LIMIT 1");
      latest.bind(1, variant);
      if (!latest.step()) {
        ++counts.variants_added;
        for (const SourceRow& row : rows) copy_measurement(row, variant, counts);
        continue;
      }
      const SourceRow& theirs = rows.back();
      if (already_there(theirs, variant)) continue;
      if (better(theirs.status, theirs.median, latest.text(0), latest.real(1))) {
        copy_measurement(theirs, variant, counts);
        ++counts.replaced;
      } else {
        ++counts.kept;
      }
    }
  }

  std::vector<SourceRow> source_rows(int64_t src_variant) {
    Statement s(db(), path(),
                "SELECT m.id, m.status, m.median_ms, m.created_at, o.database_id, o.path, "
                "o.host, o.created_at, m.origin_row FROM src.measurements m "
                "LEFT JOIN src.origins o ON o.id = m.origin_id WHERE m.variant_id = ?1 "
                "ORDER BY m.id");
    s.bind(1, src_variant);
    std::vector<SourceRow> rows;
    while (s.step()) {
      SourceRow row;
      row.id = s.int64(0);
      row.status = s.text(1);
      row.median = s.real(2);
      row.created_at = s.text(3);
      if (!s.is_null(4)) {
        row.origin_id = upsert_origin(s.text(4), s.text(5), s.text(6), s.text(7));
        row.origin_row = s.int64(8);
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // The same attempt, whichever file it travelled through: same status, samples, message and
  // second.
  bool already_there(const SourceRow& row, int64_t variant) {
    Statement s(db(), path(),
                "SELECT 1 FROM main.measurements m, src.measurements t WHERE t.id = ?1 "
                "AND m.variant_id = ?2 AND m.status = t.status AND m.samples_json = "
                "t.samples_json AND m.message = t.message AND m.created_at = t.created_at");
    s.bind(1, row.id).bind(2, variant);
    return s.step();
  }

  void copy_measurement(const SourceRow& row, int64_t variant, MergeCounts& counts) {
    const std::string sql = "INSERT INTO main.measurements (" + measurement_columns_ +
                            ", variant_id, origin_id, origin_row) SELECT " + measurement_columns_ +
                            ", ?1, ?2, ?3 FROM src.measurements WHERE id = ?4";
    Statement s(db(), path(), sql.c_str());
    s.bind(1, variant).bind(2, row.origin_id.value_or(input_origin_));
    s.bind(3, row.origin_id ? row.origin_row : row.id).bind(4, row.id).run();
    ++counts.attempts_copied;
  }

  void merge_searches(int64_t src_workload, int64_t workload, MergeCounts& counts) {
    Statement searches(db(), path(),
                       "SELECT t.id, o.database_id, o.path, o.host, o.created_at, t.origin_row "
                       "FROM src.searches t LEFT JOIN src.origins o ON o.id = t.origin_id "
                       "WHERE t.workload_id = ?1 AND NOT EXISTS (SELECT 1 FROM main.searches m "
                       "WHERE m.workload_id = ?2 AND m.strategy = t.strategy AND m.seed = t.seed "
                       "AND m.evaluated = t.evaluated AND m.created_at = t.created_at "
                       "AND m.wall_s IS t.wall_s) ORDER BY t.id");
    searches.bind(1, src_workload).bind(2, workload);
    const std::string sql = "INSERT INTO main.searches (" + search_columns_ +
                            ", workload_id, origin_id, origin_row) SELECT " + search_columns_ +
                            ", ?1, ?2, ?3 FROM src.searches WHERE id = ?4";
    while (searches.step()) {
      int64_t origin = input_origin_, origin_row = searches.int64(0);
      if (!searches.is_null(1)) {
        origin =
            upsert_origin(searches.text(1), searches.text(2), searches.text(3), searches.text(4));
        origin_row = searches.int64(5);
      }
      Statement insert(db(), path(), sql.c_str());
      insert.bind(1, workload).bind(2, origin).bind(3, origin_row).bind(4, searches.int64(0));
      insert.run();
      ++counts.searches_copied;
    }
  }

  int64_t upsert_origin(const std::string& database_id, const std::string& file,
                        const std::string& host, const std::string& created_at) {
    Statement s(db(), path(),
                "INSERT INTO main.origins (database_id, path, host, created_at) "
                "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (database_id, path) "
                "DO UPDATE SET host = host RETURNING id");
    s.bind(1, database_id).bind(2, file).bind(3, host).bind(4, created_at);
    if (!s.step()) throw Error(ErrorCode::kDb, path() + ": origin upsert returned no row");
    const int64_t id = s.int64(0);
    s.reset();
    return id;
  }

  // A table's columns that a merge copies as they are: all but its keys and provenance.
  std::string copied_columns(const std::string& table) {
    Statement s(db(), path(), ("PRAGMA main.table_info(" + table + ")").c_str());
    std::string out;
    while (s.step()) {
      const std::string name = s.text(1);
      if (name == "id" || name == "variant_id" || name == "workload_id" || name == "origin_id" ||
          name == "origin_row") {
        continue;
      }
      out += (out.empty() ? "" : ", ") + name;
    }
    return out;
  }

  static std::string absolute(const std::string& file) {
    std::error_code error;
    const auto path = std::filesystem::absolute(file, error);
    return error ? file : path.lexically_normal().string();
  }

  SqliteStore& out_;
  std::string input_;
  int64_t input_origin_ = 0;
  std::string measurement_columns_, search_columns_;
};

// The schema version of a file, read without changing it; 0 for an empty or new file.
int schema_version(const std::string& file) {
  sqlite3* raw = nullptr;
  const std::string name = "file:" + uri_escape(file) + "?mode=ro";
  int rc = sqlite3_open_v2(name.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK) return 0;
  sqlite3_stmt* s = nullptr;
  int version = 0;
  if (sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    version = sqlite3_column_int(s, 0);
  }
  sqlite3_finalize(s);
  return version;
}

}  // namespace

MergeCounts merge_database(const std::string& output, const std::string& input) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(input, error)) {
    throw Error(ErrorCode::kIo, input +
                                    ": no such database file; expected a gputune database "
                                    "(such as a shard's --db)");
  }
  if (std::filesystem::exists(output, error) && std::filesystem::equivalent(output, input, error)) {
    throw Error(ErrorCode::kUsage,
                input +
                    ": is the output database itself; give the output first, then the "
                    "databases to merge into it");
  }
  const int version = schema_version(input);
  // Upgrading an older input is what any gputune command that writes to it would do.
  if (version > 0 && version < kSchemaVersion) SqliteStore(input, false);
  SqliteStore(input, true);  // refuses a newer schema or a file that is not ours, by name
  SqliteStore out(output, false);
  return DatabaseMerge(out, input).run();
}

}  // namespace gputune
