// The one file of src/release/ that talks to SQLite: a release database written once and read
// back (for the dump), as docs/release-format.md lays it out.
#include <sqlite3.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "gputune/error.h"
#include "release/release_db.h"

namespace gputune {
namespace {

const char* const kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  space_hash TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  UNIQUE (name, source_hash, space_hash));
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL, cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL,
  sm_count INTEGER NOT NULL, toolchain TEXT NOT NULL,
  UNIQUE (name, cc_major, cc_minor, sm_count, toolchain));
CREATE TABLE configs (
  id INTEGER PRIMARY KEY,
  kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  config_json TEXT NOT NULL,
  is_baseline INTEGER NOT NULL,
  UNIQUE (kernel_id, config_json));
CREATE TABLE choices (
  kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_json TEXT NOT NULL,
  rank INTEGER NOT NULL,
  config_id INTEGER NOT NULL REFERENCES configs (id),
  median_ms REAL NOT NULL, spread REAL NOT NULL,
  speedup_over_baseline REAL,
  margin_to_runner_up REAL,
  registers INTEGER NOT NULL, shared_bytes INTEGER NOT NULL,
  provenance TEXT NOT NULL,
  PRIMARY KEY (kernel_id, device_id, problem_json, rank));
CREATE TABLE observations (
  kernel_id INTEGER NOT NULL, device_id INTEGER NOT NULL, problem_json TEXT NOT NULL,
  config_json TEXT NOT NULL, median_ms REAL NOT NULL);
CREATE TABLE code (
  config_id INTEGER NOT NULL REFERENCES configs (id),
  target TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('cubin', 'ptx')),
  entry TEXT NOT NULL,
  image BLOB NOT NULL,
  registers INTEGER, shared_bytes INTEGER,
  PRIMARY KEY (config_id, target));
CREATE TABLE overrides (
  kernel TEXT NOT NULL, device_name TEXT NOT NULL,
  problem_json TEXT NOT NULL,
  config_json TEXT NOT NULL);
)sql";

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

class Db {
 public:
  Db(const std::string& path, bool write) : path_(path) {
    sqlite3* raw = nullptr;
    const int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) {
      fail("cannot open: " + std::string(raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
  }
  sqlite3* get() const { return db_.get(); }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::kDb, path_ + ": " + what);
  }
  void exec(const std::string& sql) const {
    char* raw = nullptr;
    if (sqlite3_exec(get(), sql.c_str(), nullptr, nullptr, &raw) != SQLITE_OK) {
      std::string message = raw ? raw : sqlite3_errmsg(get());
      sqlite3_free(raw);
      fail(message);
    }
  }

 private:
  std::string path_;
  DbHandle db_;
};

class Statement {
 public:
  Statement(const Db& db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db.get(), sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      std::string message = sqlite3_errmsg(db.get());
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      db.fail(message);
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
  Statement& bind(int i, const std::string& v) {
    return check(
        sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Statement& bind_blob(int i, const std::string& v) {
    return check(
        sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  template <typename T>
  Statement& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : check(sqlite3_bind_null(stmt_, i));
  }

  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail(sqlite3_errmsg(db_.get()));
  }
  // Runs an INSERT and makes the statement ready for the next row.
  void insert() {
    step();
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  int64_t int64(int i) const { return sqlite3_column_int64(stmt_, i); }
  int integer(int i) const { return sqlite3_column_int(stmt_, i); }
  double real(int i) const { return sqlite3_column_double(stmt_, i); }
  std::optional<double> optional_real(int i) const {
    return is_null(i) ? std::nullopt : std::optional<double>(real(i));
  }
  std::optional<int> optional_integer(int i) const {
    return is_null(i) ? std::nullopt : std::optional<int>(integer(i));
  }
  std::string text(int i) const {
    const void* p = sqlite3_column_blob(stmt_, i);
    if (p == nullptr) return {};
    return std::string(static_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(stmt_, i)));
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) db_.fail(std::string("cannot bind a value: ") + sqlite3_errmsg(db_.get()));
    return *this;
  }
  const Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

int64_t pragma_int(const Db& db, const char* name) {
  Statement s(db, (std::string("PRAGMA ") + name).c_str());
  return s.step() ? s.int64(0) : 0;
}

}  // namespace

void write_release_db(const Release& release, const std::string& path) {
  Db db(path, true);
  // One file, no journal left beside it: the builder renames it into place when complete.
  db.exec("PRAGMA journal_mode = OFF");
  db.exec("PRAGMA application_id = " + std::to_string(kReleaseApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(kReleaseFormat));
  db.exec("BEGIN");
  db.exec(kSchema);
  {
    Statement s(db, "INSERT INTO meta (key, value) VALUES (?1, ?2)");
    for (const auto& [key, value] : release.meta) s.bind(1, key).bind(2, value).insert();
  }
  {
    Statement s(db,
                "INSERT INTO kernels (id, name, source_hash, space_hash, spec_json) "
                "VALUES (?1, ?2, ?3, ?4, ?5)");
    int64_t id = 0;
    for (const ReleaseKernel& k : release.kernels) {
      s.bind(1, ++id).bind(2, k.name).bind(3, k.source_hash).bind(4, k.space_hash);
      s.bind(5, k.spec_json).insert();
    }
  }
  {
    Statement s(db,
                "INSERT INTO devices (id, name, cc_major, cc_minor, sm_count, toolchain) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    int64_t id = 0;
    for (const ReleaseDevice& d : release.devices) {
      s.bind(1, ++id).bind(2, d.name).bind(3, d.cc_major).bind(4, d.cc_minor);
      s.bind(5, d.sm_count).bind(6, d.toolchain).insert();
    }
  }
  {
    Statement s(db,
                "INSERT INTO configs (id, kernel_id, config_json, is_baseline) "
                "VALUES (?1, ?2, ?3, ?4)");
    int64_t id = 0;
    for (const ReleaseConfig& c : release.configs) {
      s.bind(1, ++id).bind(2, c.kernel_id).bind(3, c.config_json);
      s.bind(4, c.is_baseline ? 1 : 0).insert();
    }
  }
  {
    Statement s(db,
                "INSERT INTO choices (kernel_id, device_id, problem_json, rank, config_id, "
                "median_ms, spread, speedup_over_baseline, margin_to_runner_up, registers, "
                "shared_bytes, provenance) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    for (const ReleaseChoice& c : release.choices) {
      s.bind(1, c.kernel_id).bind(2, c.device_id).bind(3, c.problem_json).bind(4, c.rank);
      s.bind(5, c.config_id).bind(6, c.median_ms).bind(7, c.spread);
      s.bind(8, c.speedup_over_baseline).bind(9, c.margin_to_runner_up);
      s.bind(10, c.registers).bind(11, c.shared_bytes).bind(12, c.provenance).insert();
    }
  }
  {
    Statement s(db,
                "INSERT INTO observations (kernel_id, device_id, problem_json, config_json, "
                "median_ms) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const ReleaseObservation& o : release.observations) {
      s.bind(1, o.kernel_id).bind(2, o.device_id).bind(3, o.problem_json);
      s.bind(4, o.config_json).bind(5, o.median_ms).insert();
    }
  }
  {
    Statement s(db,
                "INSERT INTO code (config_id, target, kind, entry, image, registers, "
                "shared_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (const ReleaseCode& c : release.code) {
      s.bind(1, c.config_id).bind(2, c.target).bind(3, c.kind).bind(4, c.entry);
      s.bind_blob(5, c.image).bind(6, c.registers).bind(7, c.shared_bytes).insert();
    }
  }
  db.exec("COMMIT");
}

Release read_release_db(const std::string& path) {
  Db db(path, false);
  int64_t application_id = 0;
  try {
    application_id = pragma_int(db, "application_id");
  } catch (const Error&) {
    db.fail("not a gputune release database (not an SQLite file)");
  }
  if (application_id != kReleaseApplicationId) {
    db.fail("not a gputune release database (application_id " + std::to_string(application_id) +
            "; `gputune release` writes one)");
  }
  const int64_t format = pragma_int(db, "user_version");
  if (format > kReleaseFormat) {
    db.fail("has release format " + std::to_string(format) + ", newer than this gputune's " +
            std::to_string(kReleaseFormat) + "; read it with a newer gputune");
  }
  Release r;
  {
    Statement s(db, "SELECT key, value FROM meta ORDER BY key");
    while (s.step()) r.meta[s.text(0)] = s.text(1);
  }
  {
    Statement s(db, "SELECT name, source_hash, space_hash, spec_json FROM kernels ORDER BY id");
    while (s.step()) r.kernels.push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
  }
  {
    Statement s(db,
                "SELECT name, cc_major, cc_minor, sm_count, toolchain FROM devices ORDER BY id");
    while (s.step()) {
      r.devices.push_back({s.text(0), s.integer(1), s.integer(2), s.integer(3), s.text(4)});
    }
  }
  {
    Statement s(db, "SELECT kernel_id, config_json, is_baseline FROM configs ORDER BY id");
    while (s.step()) r.configs.push_back({s.int64(0), s.text(1), s.integer(2) != 0});
  }
  {
    Statement s(db,
                "SELECT kernel_id, device_id, problem_json, rank, config_id, median_ms, spread, "
                "speedup_over_baseline, margin_to_runner_up, registers, shared_bytes, provenance "
                "FROM choices ORDER BY rowid");
    while (s.step()) {
      ReleaseChoice c;
      c.kernel_id = s.int64(0);
      c.device_id = s.int64(1);
      c.problem_json = s.text(2);
      c.rank = s.integer(3);
      c.config_id = s.int64(4);
      c.median_ms = s.real(5);
      c.spread = s.real(6);
      c.speedup_over_baseline = s.optional_real(7);
      c.margin_to_runner_up = s.optional_real(8);
      c.registers = s.integer(9);
      c.shared_bytes = s.integer(10);
      c.provenance = s.text(11);
      r.choices.push_back(std::move(c));
    }
  }
  {
    Statement s(db,
                "SELECT kernel_id, device_id, problem_json, config_json, median_ms "
                "FROM observations ORDER BY rowid");
    while (s.step()) {
      r.observations.push_back({s.int64(0), s.int64(1), s.text(2), s.text(3), s.real(4)});
    }
  }
  {
    Statement s(db,
                "SELECT config_id, target, kind, entry, image, registers, shared_bytes "
                "FROM code ORDER BY config_id, target");
    while (s.step()) {
      r.code.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4),
                        s.optional_integer(5), s.optional_integer(6)});
    }
  }
  return r;
}

}  // namespace gputune
