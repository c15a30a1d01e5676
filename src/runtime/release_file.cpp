#include "runtime/release_file.h"

#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace gputune::runtime {
namespace {

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK) {
      const std::string why = sqlite3_errmsg(db);
      sqlite3_finalize(statement_);
      throw RuntimeError(why);
    }
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool step() {
    const int result = sqlite3_step(statement_);
    if (result == SQLITE_ROW) return true;
    if (result == SQLITE_DONE) return false;
    throw RuntimeError(sqlite3_errmsg(sqlite3_db_handle(statement_)));
  }
  void bind(int index, int64_t value) { sqlite3_bind_int64(statement_, index, value); }
  int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }
  double real(int column) const { return sqlite3_column_double(statement_, column); }
  std::string text(int column) const {
    const auto* bytes = sqlite3_column_blob(statement_, column);
    const int size = sqlite3_column_bytes(statement_, column);
    return bytes == nullptr ? std::string() : std::string(static_cast<const char*>(bytes), size);
  }

 private:
  sqlite3_stmt* statement_ = nullptr;
};

int64_t pragma(sqlite3* db, const char* sql) {
  Statement statement(db, sql);
  return statement.step() ? statement.integer(0) : 0;
}

}  // namespace

ProblemValues parse_problem_json(const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) throw RuntimeError("problem '" + text + "' is not a JSON object");
  ProblemValues values;
  for (const auto& [name, value] : json.items()) {
    if (!value.is_number()) {
      throw RuntimeError("problem value '" + name + "' in '" + text + "' is not a number");
    }
    values[name] = value.get<double>();
  }
  return values;
}

std::unique_ptr<ReleaseFile> ReleaseFile::open(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw RuntimeError("not found");
  std::unique_ptr<ReleaseFile> file(new ReleaseFile());
  file->path_ = path;
  // immutable=1: no locks, no journal; the file is never written after the builder closes it.
  // Characters that a URI would read otherwise are escaped.
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", static_cast<unsigned char>(c));
      uri += hex;
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  if (sqlite3_open_v2(uri.c_str(), &file->db_,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    throw RuntimeError(std::string("cannot be opened (") + sqlite3_errmsg(file->db_) + ")");
  }
  int64_t application_id = 0, format = 0;
  try {
    application_id = pragma(file->db_, "PRAGMA application_id");
    format = pragma(file->db_, "PRAGMA user_version");
  } catch (const RuntimeError& e) {
    throw RuntimeError(std::string("truncated or corrupt (") + e.what() + ")");
  }
  if (application_id != kReleaseApplicationId) {
    throw RuntimeError("not a gputune release database (application_id " +
                       std::to_string(application_id) + ", expected " +
                       std::to_string(kReleaseApplicationId) + ")");
  }
  if (format > kReleaseFormat) {
    throw RuntimeError("newer schema (format " + std::to_string(format) +
                       "; this library reads up to format " + std::to_string(kReleaseFormat) +
                       "): update gputune");
  }
  try {
    file->read_tables();
  } catch (const std::exception& e) {
    throw RuntimeError(std::string("truncated or corrupt (") + e.what() + ")");
  }
  return file;
}

ReleaseFile::~ReleaseFile() { sqlite3_close_v2(db_); }

void ReleaseFile::read_tables() {
  {
    Statement s(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (s.step()) tables_.insert(s.text(0));
  }
  {
    Statement s(db_,
                "SELECT id, name, source_hash, space_hash, spec_json FROM kernels ORDER BY id");
    while (s.step()) kernels_.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  }
  {
    Statement s(
        db_, "SELECT id, name, cc_major, cc_minor, sm_count, toolchain FROM devices ORDER BY id");
    while (s.step()) {
      devices_[s.integer(0)] = {s.integer(0),
                                s.text(1),
                                static_cast<int>(s.integer(2)),
                                static_cast<int>(s.integer(3)),
                                static_cast<int>(s.integer(4)),
                                s.text(5)};
    }
  }
  {
    Statement s(db_, "SELECT id, kernel_id, config_json, is_baseline FROM configs ORDER BY id");
    while (s.step()) {
      configs_[s.integer(0)] = {s.integer(0), s.integer(1), s.text(2), s.integer(3) != 0};
    }
  }
  {
    Statement s(db_,
                "SELECT kernel_id, device_id, problem_json, rank, config_id, median_ms, registers, "
                "shared_bytes FROM choices ORDER BY kernel_id, device_id, problem_json, rank");
    while (s.step()) {
      ReleaseChoice c;
      c.kernel_id = s.integer(0);
      c.device_id = s.integer(1);
      c.problem_json = s.text(2);
      c.problem = parse_problem_json(c.problem_json);
      c.rank = static_cast<int>(s.integer(3));
      c.config_id = s.integer(4);
      c.median_ms = s.real(5);
      c.registers = static_cast<int>(s.integer(6));
      c.shared_bytes = static_cast<int>(s.integer(7));
      choices_.push_back(std::move(c));
    }
  }
  {
    if (!tables_.count("overrides")) return;
    Statement s(db_, "SELECT kernel, device_name, problem_json, config_json FROM overrides");
    while (s.step()) overrides_.push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
  }
}

std::vector<ReleaseObservation> ReleaseFile::observations(int64_t kernel_id) const {
  std::vector<ReleaseObservation> out;
  if (!tables_.count("observations")) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_,
              "SELECT device_id, problem_json, config_json, median_ms FROM observations WHERE "
              "kernel_id = ?1 ORDER BY rowid");
  s.bind(1, kernel_id);
  while (s.step()) {
    out.push_back({s.integer(0), parse_problem_json(s.text(1)), s.text(2), s.real(3)});
  }
  return out;
}

bool ReleaseFile::has_code(int64_t config_id) const {
  if (!tables_.count("code")) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT 1 FROM code WHERE config_id = ?1 LIMIT 1");
  s.bind(1, config_id);
  return s.step();
}

std::vector<ReleaseCode> ReleaseFile::code(int64_t config_id) const {
  std::vector<ReleaseCode> out;
  if (!tables_.count("code")) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT target, kind, entry, image FROM code WHERE config_id = ?1");
  s.bind(1, config_id);
  while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
  return out;
}

}  // namespace gputune::runtime
