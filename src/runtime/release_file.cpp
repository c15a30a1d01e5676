#include "runtime/release_file.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/sqlite.h"
#include "gputune/error.h"

namespace gputune::runtime {
namespace {

// The library's callers see RuntimeError, whatever failed underneath.
template <typename Read>
auto reading(Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const Error& e) {
    throw RuntimeError(e.what());
  }
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
  // Immutable: no locks, no journal; the file is never written after the builder closes it.
  // Errors without the path: the selector's warning names the file.
  file->db_ = reading(
      [&] { return std::make_unique<sqlite::Database>(path, sqlite::Mode::kImmutable, ""); });
  int64_t application_id = 0, format = 0;
  try {
    application_id = file->db_->pragma("application_id");
    format = file->db_->pragma("user_version");
  } catch (const Error& e) {
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

ReleaseFile::~ReleaseFile() = default;

void ReleaseFile::read_tables() {
  const sqlite::Database& db = *db_;
  {
    sqlite::Statement s(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (s.step()) tables_.insert(s.text(0));
  }
  {
    sqlite::Statement s(
        db, "SELECT id, name, source_hash, space_hash, spec_json FROM kernels ORDER BY id");
    while (s.step()) kernels_.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  }
  {
    sqlite::Statement s(
        db, "SELECT id, name, cc_major, cc_minor, sm_count, toolchain FROM devices ORDER BY id");
    while (s.step()) {
      devices_[s.int64(0)] = {s.int64(0),   s.text(1),    s.integer(2),
                              s.integer(3), s.integer(4), s.text(5)};
    }
  }
  {
    sqlite::Statement s(db,
                        "SELECT id, kernel_id, config_json, is_baseline FROM configs ORDER BY id");
    while (s.step()) {
      configs_[s.int64(0)] = {s.int64(0), s.int64(1), s.text(2), s.int64(3) != 0};
    }
  }
  {
    sqlite::Statement s(
        db,
        "SELECT kernel_id, device_id, problem_json, rank, config_id, median_ms, spread, "
        "speedup_over_baseline, margin_to_runner_up, registers, shared_bytes, provenance "
        "FROM choices ORDER BY kernel_id, device_id, problem_json, rank");
    while (s.step()) {
      ParsedChoice c;
      c.kernel_id = s.int64(0);
      c.device_id = s.int64(1);
      c.problem_json = s.text(2);
      c.problem = parse_problem_json(c.problem_json);
      c.rank = s.integer(3);
      c.config_id = s.int64(4);
      c.median_ms = s.real(5);
      c.spread = s.real(6);
      c.speedup_over_baseline = s.optional_real(7);
      c.margin_to_runner_up = s.optional_real(8);
      c.registers = s.integer(9);
      c.shared_bytes = s.integer(10);
      c.provenance = s.text(11);
      choices_.push_back(std::move(c));
    }
  }
  {
    if (!tables_.count("overrides")) return;
    sqlite::Statement s(db, "SELECT kernel, device_name, problem_json, config_json FROM overrides");
    while (s.step()) overrides_.push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
  }
}

std::vector<ParsedObservation> ReleaseFile::observations(int64_t kernel_id) const {
  std::vector<ParsedObservation> out;
  if (!tables_.count("observations")) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  return reading([&] {
    sqlite::Statement s(*db_,
                        "SELECT device_id, problem_json, config_json, median_ms FROM observations "
                        "WHERE kernel_id = ?1 ORDER BY rowid");
    s.bind(1, kernel_id);
    while (s.step()) {
      ParsedObservation o;
      o.kernel_id = kernel_id;
      o.device_id = s.int64(0);
      o.problem_json = s.text(1);
      o.problem = parse_problem_json(o.problem_json);
      o.config_json = s.text(2);
      o.median_ms = s.real(3);
      out.push_back(std::move(o));
    }
    return out;
  });
}

bool ReleaseFile::has_code(int64_t config_id) const {
  if (!tables_.count("code")) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return reading([&] {
    sqlite::Statement s(*db_, "SELECT 1 FROM code WHERE config_id = ?1 LIMIT 1");
    s.bind(1, config_id);
    return s.step();
  });
}

std::vector<ReleaseCode> ReleaseFile::code(int64_t config_id) const {
  std::vector<ReleaseCode> out;
  if (!tables_.count("code")) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  return reading([&] {
    sqlite::Statement s(*db_,
                        "SELECT target, kind, entry, image, registers, shared_bytes FROM code "
                        "WHERE config_id = ?1");
    s.bind(1, config_id);
    while (s.step()) {
      out.push_back({config_id, s.text(0), s.text(1), s.text(2), s.text(3), s.optional_integer(4),
                     s.optional_integer(5)});
    }
    return out;
  });
}

}  // namespace gputune::runtime
