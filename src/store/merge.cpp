#include "store/merge.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/files.h"
#include "core/sqlite.h"
#include "gputune/error.h"
#include "store/schema.h"

namespace gputune {
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
  // `attached`: the file read, `input` itself or its upgraded copy; `input`: what the counts,
  // the provenance and the errors name.
  DatabaseMerge(const sqlite::Database& out, const std::string& attached, const std::string& input)
      : out_(out), attached_(attached), input_(input) {}

  MergeCounts run() {
    {
      sqlite::Statement attach(out_, "ATTACH DATABASE ?1 AS src");
      attach.bind(1, attached_).run();
    }
    MergeCounts counts;
    try {
      sqlite::Transaction tx(out_);
      counts = merge();
      tx.commit();
    } catch (...) {
      try {
        out_.exec("DETACH DATABASE src");
      } catch (const Error&) {
        // the merge's own error is the one to report
      }
      throw;
    }
    out_.exec("DETACH DATABASE src");
    return counts;
  }

 private:
  const sqlite::Database& db() const { return out_; }

  MergeCounts merge() {
    MergeCounts counts;
    counts.input = input_;
    {
      sqlite::Statement s(db(), "SELECT database_id, host, created_at FROM src.identity");
      if (!s.step()) throw Error(ErrorCode::kDb, input_ + ": has no identity row");
      counts.host = s.text(1);
      counts.created_at = s.text(2);
      input_origin_ = upsert_origin(s.text(0), absolute(input_), s.text(1), s.text(2));
    }
    measurement_columns_ = copied_columns("measurements");
    search_columns_ = copied_columns("searches");
    sqlite::Statement workloads(db(), R"sql(
SELECT w.id, s.spec_hash, s.source_hash, s.path, s.text, s.kernel_name, w.problem_json,
       d.key, w.nvrtc_version, w.baseline_index, w.created_at, d.id, d.copy_bandwidth_gbs,
       d.bandwidth_measured_at
FROM src.workloads w JOIN src.specs s ON s.id = w.spec_id JOIN src.devices d ON d.id = w.device_id
ORDER BY w.id)sql");
    while (workloads.step()) {
      const int64_t device = copy_device(workloads.int64(11));
      sqlite::Statement spec(
          db(),
          "INSERT INTO main.specs (spec_hash, source_hash, path, text, kernel_name) "
          "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (spec_hash, source_hash) "
          "DO UPDATE SET path = path RETURNING id");
      spec.bind(1, workloads.text(1)).bind(2, workloads.text(2)).bind(3, workloads.text(3));
      spec.bind(4, workloads.text(4)).bind(5, workloads.text(5));
      if (!spec.step()) db().fail("spec upsert returned no row");
      const int64_t spec_id = spec.int64(0);
      spec.reset();

      sqlite::Statement insert(
          db(),
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
      counts.workloads_added += db().changes();
      sqlite::Statement select(
          db(),
          "SELECT id FROM main.workloads WHERE spec_id = ?1 AND problem_json = ?2 "
          "AND device_id = ?3 AND nvrtc_version = ?4");
      select.bind(1, spec_id).bind(2, workloads.text(6)).bind(3, device);
      select.bind(4, workloads.text(8));
      if (!select.step()) db().fail("workload vanished on merge");
      const int64_t workload = select.int64(0);
      select.reset();
      if (!workloads.is_null(9)) {
        sqlite::Statement baseline(db(),
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
    sqlite::Statement s(db(), R"sql(
INSERT INTO main.devices (key, name, uuid, cc_major, cc_minor, sm_count, l2_bytes, memory_bytes,
                          driver_version, copy_bandwidth_gbs, bandwidth_measured_at)
SELECT key, name, uuid, cc_major, cc_minor, sm_count, l2_bytes, memory_bytes, driver_version,
       copy_bandwidth_gbs, bandwidth_measured_at FROM src.devices WHERE id = ?1
ON CONFLICT (key) DO UPDATE SET
  copy_bandwidth_gbs = coalesce(copy_bandwidth_gbs, excluded.copy_bandwidth_gbs),
  bandwidth_measured_at = coalesce(bandwidth_measured_at, excluded.bandwidth_measured_at)
RETURNING id)sql");
    s.bind(1, src_device);
    if (!s.step()) db().fail("device upsert returned no row");
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
    sqlite::Statement variants(db(),
                               "SELECT id, config_index, config_json FROM src.variants "
                               "WHERE workload_id = ?1 ORDER BY config_index");
    variants.bind(1, src_workload);
    while (variants.step()) {
      sqlite::Statement upsert(
          db(),
          "INSERT INTO main.variants (workload_id, config_index, config_json) "
          "VALUES (?1, ?2, ?3) ON CONFLICT (workload_id, config_index) DO UPDATE "
          "SET config_json = CASE WHEN config_json = '' THEN excluded.config_json "
          "ELSE config_json END RETURNING id");
      upsert.bind(1, workload).bind(2, variants.int64(1)).bind(3, variants.text(2));
      if (!upsert.step()) db().fail("variant upsert returned no row");
      const int64_t variant = upsert.int64(0);
      upsert.reset();

      std::vector<SourceRow> rows = source_rows(variants.int64(0));
      if (rows.empty()) continue;
      sqlite::Statement latest(
          db(),
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
    sqlite::Statement s(db(),
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
    sqlite::Statement s(db(),
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
    sqlite::Statement s(db(), sql);
    s.bind(1, variant).bind(2, row.origin_id.value_or(input_origin_));
    s.bind(3, row.origin_id ? row.origin_row : row.id).bind(4, row.id).run();
    ++counts.attempts_copied;
  }

  void merge_searches(int64_t src_workload, int64_t workload, MergeCounts& counts) {
    sqlite::Statement searches(
        db(),
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
      sqlite::Statement insert(db(), sql);
      insert.bind(1, workload).bind(2, origin).bind(3, origin_row).bind(4, searches.int64(0));
      insert.run();
      ++counts.searches_copied;
    }
  }

  int64_t upsert_origin(const std::string& database_id, const std::string& file,
                        const std::string& host, const std::string& created_at) {
    sqlite::Statement s(db(),
                        "INSERT INTO main.origins (database_id, path, host, created_at) "
                        "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (database_id, path) "
                        "DO UPDATE SET host = host RETURNING id");
    s.bind(1, database_id).bind(2, file).bind(3, host).bind(4, created_at);
    if (!s.step()) db().fail("origin upsert returned no row");
    const int64_t id = s.int64(0);
    s.reset();
    return id;
  }

  // A table's columns that a merge copies as they are: all but its keys and provenance.
  std::string copied_columns(const std::string& table) {
    sqlite::Statement s(db(), "PRAGMA main.table_info(" + table + ")");
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

  const sqlite::Database& out_;
  std::string attached_, input_;
  int64_t input_origin_ = 0;
  std::string measurement_columns_, search_columns_;
};

// A damaged file can read as one with fewer rows (a page whose cells SQLite no longer sees is an
// empty table), which a merge would report as success: SQLite checks the whole file first.
void check_integrity(const std::string& input) {
  const sqlite::Database db(input, sqlite::Mode::kReadOnly);
  sqlite::Statement check(db, "PRAGMA integrity_check(3)");
  std::string problems;
  while (check.step()) {
    const std::string line = check.text(0);
    if (line != "ok") problems += (problems.empty() ? "" : "; ") + line;
  }
  if (!problems.empty()) {
    throw Error(ErrorCode::kDb, input + ": is damaged (SQLite's integrity check: " + problems +
                                    "); nothing merged from it. Merge a good copy (a shard's "
                                    "database can be searched again to rebuild it)");
  }
}

// Rows that gputune never writes, which another program or a hand edit can: the store refuses
// them on each read of the merged file (a config that is not a JSON object), or they would rank
// as measured (a time that is not a positive number became "the best"). Checked in `attached`
// (the input, or its upgraded copy) before anything is merged; refused naming `input`.
void check_rows(const std::string& attached, const std::string& input) {
  const sqlite::Database db(attached, sqlite::Mode::kReadOnly);
  struct Check {
    const char* row;       // "workload", followed by the row's id
    const char* expected;  // what its column must hold
    const char* sql;       // the first offending row's id
  };
  // CASE, since json_type() fails on text that is not JSON.
  static const Check kChecks[] = {
      {"workload ", "problem values that are a JSON object",
       "SELECT id FROM workloads WHERE CASE WHEN json_valid(problem_json) THEN "
       "json_type(problem_json) END IS NOT 'object' LIMIT 1"},
      {"variant ", "a config that is a JSON object",
       "SELECT id FROM variants WHERE config_json != '' AND CASE WHEN json_valid(config_json) "
       "THEN json_type(config_json) END IS NOT 'object' LIMIT 1"},
      {"measurement ", "samples that are a JSON array of positive numbers",
       "SELECT id FROM measurements WHERE CASE WHEN json_valid(samples_json) AND "
       "json_type(samples_json) = 'array' THEN EXISTS (SELECT 1 FROM json_each(samples_json) "
       "WHERE type NOT IN ('integer', 'real', 'null') OR NOT (value > 0 AND value < 1e308)) "
       "ELSE 1 END LIMIT 1"},
      {"measurement ", "a median time that is a positive number",
       "SELECT id FROM measurements WHERE median_ms IS NOT NULL AND "
       "NOT (median_ms > 0 AND median_ms < 1e308) LIMIT 1"},
  };
  for (const Check& check : kChecks) {
    sqlite::Statement s(db, check.sql);
    if (!s.step()) continue;
    throw Error(ErrorCode::kDb, input + ": " + check.row + std::to_string(s.int64(0)) +
                                    " does not hold " + check.expected +
                                    ", which gputune always writes; nothing merged from it");
  }
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
  const bool older = version > 0 && version < current_schema_version();
  // Refuses a newer schema, an empty file or one that is not ours, by name.
  if (!older) open_store_database(input, true);
  check_integrity(input);
  // An input is only read: one of an older schema is upgraded in a private copy.
  std::string attached = input;
  std::string folder;
  try {
    if (older) {
      folder = make_private_temp_directory("gputune-merge");
      attached = folder + "/input.db";
      {
        const sqlite::Database source(input, sqlite::Mode::kReadOnly);
        sqlite::Statement copy(source, "VACUUM INTO ?1");
        copy.bind(1, attached).run();
      }
      try {
        open_store_database(attached, false);
      } catch (const Error& e) {
        // The copy's faults are the input's (another application's file, say).
        const std::string what = e.what();
        if (what.compare(0, attached.size(), attached) != 0) throw;
        throw Error(e.code(), input + what.substr(attached.size()));
      }
    }
    check_rows(attached, input);
    const auto out = open_store_database(output, false);
    MergeCounts counts = DatabaseMerge(*out, attached, input).run();
    if (!folder.empty()) std::filesystem::remove_all(folder, error);
    return counts;
  } catch (...) {
    if (!folder.empty()) std::filesystem::remove_all(folder, error);
    throw;
  }
}

}  // namespace gputune
