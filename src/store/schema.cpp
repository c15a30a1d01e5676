#include "store/schema.h"

#include <unistd.h>

#include <chrono>
#include <thread>

#include "gputune/error.h"

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

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

Error not_gputune(const std::string& path, const std::string& why) {
  return Error(ErrorCode::kDb, path + ": not a gputune database (" + why + ")");
}

void migrate(const sqlite::Database& db) {
  for (const Migration& migration : kMigrations) {
    sqlite::Transaction tx(db);
    // Read again under the write lock: another process may have migrated meanwhile.
    if (db.pragma("user_version") >= migration.version) continue;
    db.exec(migration.sql);
    // PRAGMAs take no bound parameters; both values are constants of this file.
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(migration.version));
    tx.commit();
  }
}

// Every file gets a random id and the host that created it (or first upgraded it), which a
// merge records as the provenance of what it copies. A copied file keeps its id: merges match
// rows by content, not by this id.
void ensure_identity(const sqlite::Database& db) {
  sqlite::Transaction tx(db);
  sqlite::Statement s(db,
                      "INSERT INTO identity (database_id, host) SELECT lower(hex(randomblob(16))), "
                      "?1 WHERE NOT EXISTS (SELECT 1 FROM identity)");
  s.bind(1, host_name()).run();
  tx.commit();
}

// Switching to WAL needs the file to itself for a moment, a wait SQLite's busy timeout does not
// cover (it fails at once, or answers with the old mode): retried here within that time.
void switch_to_wal(const sqlite::Database& db, const std::string& path) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      sqlite::Statement wal(db, "PRAGMA journal_mode = WAL");
      if (wal.step() && wal.text(0) == "wal") return;
    } catch (const Error&) {
      if (!db.last_error_is_busy()) throw;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw Error(ErrorCode::kDb, path + ": cannot switch to WAL journal mode within " +
                                      std::to_string(kBusyTimeoutMs / 1000) +
                                      " s (another process kept the file locked, or its file "
                                      "system cannot share memory between processes)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool has_tables(const sqlite::Database& db) {
  sqlite::Statement s(db, "SELECT 1 FROM sqlite_schema LIMIT 1");
  return s.step();
}

}  // namespace

int current_schema_version() { return kSchemaVersion; }

std::unique_ptr<sqlite::Database> open_store_database(const std::string& path, bool read_only) {
  auto db = std::make_unique<sqlite::Database>(
      path, read_only ? sqlite::Mode::kReadOnly : sqlite::Mode::kReadWrite);
  db->set_busy_timeout(kBusyTimeoutMs);

  // The first read of the file is where a non-SQLite file shows itself. The id, the tables and
  // the version are read in one transaction: another process creating the file commits its
  // tables and its id together, and read apart they could straddle that commit.
  int64_t application_id = 0;
  bool tables = false;
  int version = 0;
  try {
    sqlite::Transaction read(*db, sqlite::Transaction::Kind::kRead);
    application_id = db->pragma("application_id");
    tables = has_tables(*db);
    version = static_cast<int>(db->pragma("user_version"));
    read.commit();
  } catch (const Error&) {
    if (db->last_error_is_not_a_database()) throw not_gputune(path, "not an SQLite file");
    throw;
  }
  if (application_id != 0 && application_id != kApplicationId) {
    throw not_gputune(path, "application_id is " + std::to_string(application_id));
  }
  if (application_id == 0 && tables) throw not_gputune(path, "it holds other tables");
  if (version > kSchemaVersion) {
    throw Error(ErrorCode::kDb, path + ": was written by a newer gputune (schema " +
                                    std::to_string(version) + ", this build knows " +
                                    std::to_string(kSchemaVersion) + ")");
  }

  db->exec("PRAGMA foreign_keys = ON");
  if (read_only) {
    if (version < kSchemaVersion) {
      throw Error(ErrorCode::kDb,
                  path + (version == 0 ? ": not a gputune database (empty)"
                                       : ": has schema " + std::to_string(version) +
                                             "; open it writable once to upgrade it"));
    }
    return db;
  }
  if (path != ":memory:" && !path.empty()) switch_to_wal(*db, path);
  db->exec("PRAGMA synchronous = NORMAL");
  migrate(*db);
  ensure_identity(*db);
  return db;
}

int schema_version(const std::string& file) {
  try {
    return static_cast<int>(sqlite::Database(file, sqlite::Mode::kReadOnly).pragma("user_version"));
  } catch (const Error&) {
    return 0;
  }
}

}  // namespace gputune
