#pragma once
// Writes release databases (docs/release-format.md) table by table, for the run-time
// library's tests, without the builder.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace gputune::testing {

class ReleaseWriter {
 public:
  explicit ReleaseWriter(const std::string& path, int application_id = 0x47545245, int format = 1) {
    std::filesystem::remove(path);
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("open " + path);
    exec("PRAGMA synchronous = OFF");  // a test file: no fsync per row
    exec("PRAGMA journal_mode = OFF");
    exec("PRAGMA application_id = " + std::to_string(application_id));
    exec("PRAGMA user_version = " + std::to_string(format));
    exec(R"(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE kernels (id INTEGER PRIMARY KEY, name TEXT NOT NULL, source_hash TEXT NOT NULL,
  space_hash TEXT NOT NULL, spec_json TEXT NOT NULL, UNIQUE (name, source_hash, space_hash));
CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, toolchain TEXT NOT NULL,
  UNIQUE (name, cc_major, cc_minor, sm_count, toolchain));
CREATE TABLE configs (id INTEGER PRIMARY KEY, kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  config_json TEXT NOT NULL, is_baseline INTEGER NOT NULL, UNIQUE (kernel_id, config_json));
CREATE TABLE choices (kernel_id INTEGER NOT NULL, device_id INTEGER NOT NULL,
  problem_json TEXT NOT NULL, rank INTEGER NOT NULL, config_id INTEGER NOT NULL,
  median_ms REAL NOT NULL, spread REAL NOT NULL, speedup_over_baseline REAL,
  margin_to_runner_up REAL, registers INTEGER NOT NULL, shared_bytes INTEGER NOT NULL,
  provenance TEXT NOT NULL, PRIMARY KEY (kernel_id, device_id, problem_json, rank));
CREATE TABLE observations (kernel_id INTEGER NOT NULL, device_id INTEGER NOT NULL,
  problem_json TEXT NOT NULL, config_json TEXT NOT NULL, median_ms REAL NOT NULL);
CREATE TABLE code (config_id INTEGER NOT NULL, target TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('cubin', 'ptx')), entry TEXT NOT NULL, image BLOB NOT NULL,
  registers INTEGER, shared_bytes INTEGER, PRIMARY KEY (config_id, target));
CREATE TABLE overrides (kernel TEXT NOT NULL, device_name TEXT NOT NULL,
  problem_json TEXT NOT NULL, config_json TEXT NOT NULL);
INSERT INTO meta VALUES ('format', '1'), ('noise_rule', 'test');
)");
  }
  ~ReleaseWriter() { sqlite3_close(db_); }
  ReleaseWriter(const ReleaseWriter&) = delete;
  ReleaseWriter& operator=(const ReleaseWriter&) = delete;

  int64_t kernel(const std::string& name, const std::string& spec_json,
                 const std::string& source_hash = "source-1") {
    insert("INSERT INTO kernels (name, source_hash, space_hash, spec_json) VALUES (?, ?, ?, ?)",
           {name, source_hash, "space-1", spec_json});
    return sqlite3_last_insert_rowid(db_);
  }
  int64_t device(const std::string& name, int cc_major, int cc_minor, int sm_count) {
    insert("INSERT INTO devices (name, cc_major, cc_minor, sm_count, toolchain) VALUES (?, " +
               std::to_string(cc_major) + ", " + std::to_string(cc_minor) + ", " +
               std::to_string(sm_count) + ", '13.0')",
           {name});
    return sqlite3_last_insert_rowid(db_);
  }
  // Returns the config's id, inserting it the first time.
  int64_t config(int64_t kernel_id, const std::string& config_json, bool is_baseline = false) {
    insert("INSERT OR IGNORE INTO configs (kernel_id, config_json, is_baseline) VALUES (" +
               std::to_string(kernel_id) + ", ?, " + (is_baseline ? "1" : "0") + ")",
           {config_json});
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db_, "SELECT id FROM configs WHERE kernel_id = ? AND config_json = ?", -1,
                       &s, nullptr);
    sqlite3_bind_int64(s, 1, kernel_id);
    sqlite3_bind_text(s, 2, config_json.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(s);
    const int64_t id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return id;
  }
  void choice(int64_t kernel_id, int64_t device_id, const std::string& problem_json, int rank,
              int64_t config_id, double median_ms, int registers = 32, int shared_bytes = 0) {
    insert("INSERT INTO choices VALUES (" + std::to_string(kernel_id) + ", " +
               std::to_string(device_id) + ", ?, " + std::to_string(rank) + ", " +
               std::to_string(config_id) + ", " + std::to_string(median_ms) + ", 0.01, 1.5, 0.1, " +
               std::to_string(registers) + ", " + std::to_string(shared_bytes) + ", 'test')",
           {problem_json});
  }
  void observation(int64_t kernel_id, int64_t device_id, const std::string& problem_json,
                   const std::string& config_json, double median_ms) {
    insert("INSERT INTO observations VALUES (" + std::to_string(kernel_id) + ", " +
               std::to_string(device_id) + ", ?, ?, " + std::to_string(median_ms) + ")",
           {problem_json, config_json});
  }
  void code(int64_t config_id, const std::string& target, const std::string& kind,
            const std::string& entry, const std::string& image) {
    insert("INSERT INTO code VALUES (" + std::to_string(config_id) + ", ?, ?, ?, ?, NULL, NULL)",
           {target, kind, entry, image}, true);
  }
  void override_config(const std::string& kernel, const std::string& device_name,
                       const std::string& problem_json, const std::string& config_json) {
    insert("INSERT INTO overrides VALUES (?, ?, ?, ?)",
           {kernel, device_name, problem_json, config_json});
  }
  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string why = error ? error : "?";
      sqlite3_free(error);
      throw std::runtime_error(why);
    }
  }

 private:
  // Binds each as text, the last as a blob where `last_is_blob`.
  void insert(const std::string& sql, std::initializer_list<std::string> texts,
              bool last_is_blob = false) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      throw std::runtime_error(sqlite3_errmsg(db_));
    }
    int i = 1;
    for (const std::string& t : texts) {
      if (last_is_blob && i == static_cast<int>(texts.size())) {
        sqlite3_bind_blob(s, i++, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
      } else {
        sqlite3_bind_text(s, i++, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
      }
    }
    const int result = sqlite3_step(s);
    sqlite3_finalize(s);
    if (result != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
  }

  sqlite3* db_ = nullptr;
};

}  // namespace gputune::testing
