#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sqlite.h"
#include "gputune/error.h"
#include "store/measurement_rows.h"
#include "store/schema.h"
#include "store/store.h"

namespace gputune {
namespace {

// A spec path as a database keeps it: absolute when it names a file, since the database is read
// later from other folders (`gputune release` loads the spec from it); else as given (an
// inline spec's name).
std::string stored_spec_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(path, ec)) return path;
  const fs::path absolute = fs::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

// A variant's row, found or made. Its config is the space's for that index and is written once:
// a later attempt (a replay's, an import's) fills one left empty but never replaces one.
constexpr const char* kVariantUpsert =
    "INSERT INTO variants (workload_id, config_index, config_json) "
    "VALUES (?1, ?2, ?3) ON CONFLICT (workload_id, config_index) DO UPDATE "
    "SET config_json = CASE WHEN config_json = '' THEN excluded.config_json "
    "ELSE config_json END RETURNING id";

class SqliteStore : public Store {
 public:
  SqliteStore(const std::string& path, bool read_only)
      : path_(path), read_only_(read_only), db_(open_store_database(path, read_only)) {}

  int64_t workload(const WorkloadKey& key) override {
    if (auto id = find_workload(key)) return *id;
    require_writable("create a workload");
    sqlite::Transaction tx(db());
    int64_t device_id = upsert_device(key.device);
    sqlite::Statement spec(
        db(),
        "INSERT INTO specs (spec_hash, source_hash, path, text, kernel_name) "
        "VALUES (?1, ?2, ?3, ?4, ?5) "
        "ON CONFLICT (spec_hash, source_hash) DO UPDATE SET path = excluded.path "
        "RETURNING id");
    spec.bind(1, key.spec_hash).bind(2, key.source_hash).bind(3, stored_spec_path(key.spec_path));
    spec.bind(4, key.spec_text).bind(5, key.kernel_name);
    if (!spec.step()) db().fail("spec upsert returned no row");
    int64_t spec_id = spec.int64(0);
    spec.reset();

    sqlite::Statement insert(
        db(),
        "INSERT INTO workloads (spec_id, problem_json, device_id, nvrtc_version) "
        "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING");
    insert.bind(1, spec_id).bind(2, key.problem_json).bind(3, device_id);
    insert.bind(4, key.nvrtc_version).run();
    sqlite::Statement select(db(),
                             "SELECT id FROM workloads WHERE spec_id = ?1 AND problem_json = ?2 "
                             "AND device_id = ?3 AND nvrtc_version = ?4");
    select.bind(1, spec_id).bind(2, key.problem_json).bind(3, device_id);
    select.bind(4, key.nvrtc_version);
    if (!select.step()) db().fail("workload vanished on insert");
    int64_t id = select.int64(0);
    select.reset();
    tx.commit();
    return id;
  }

  void set_baseline(int64_t workload, uint64_t config_index) override {
    require_writable("set a baseline");
    sqlite::Transaction tx(db());
    sqlite::Statement update(db(), "UPDATE workloads SET baseline_index = ?1 WHERE id = ?2");
    update.bind(1, to_db(config_index)).bind(2, workload).run();
    if (db().changes() == 0) {
      throw Error(ErrorCode::kDb, path_ + ": no workload " + std::to_string(workload));
    }
    tx.commit();
  }

  void commit(int64_t workload, const std::vector<Measurement>& measurements) override {
    require_writable("store measurements");
    if (measurements.empty()) return;
    sqlite::Transaction tx(db());
    sqlite::Statement variant(db(), kVariantUpsert);
    static const std::string kInsert = measurement_insert_sql();
    sqlite::Statement insert(db(), kInsert);
    for (const Measurement& m : measurements) {
      variant.bind(1, workload).bind(2, to_db(m.config_index)).bind(3, m.config);
      if (!variant.step()) db().fail("variant upsert returned no row");
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
    sqlite::Statement s(db(), ("SELECT " + measurement_columns() +
                               " FROM variants v JOIN measurements m ON m.id = "
                               "(SELECT MAX(id) FROM measurements WHERE variant_id = v.id) "
                               "WHERE v.workload_id = ?1 ORDER BY v.config_index"));
    s.bind(1, workload);
    std::vector<Measurement> out;
    while (s.step()) out.push_back(read_measurement(s, 0, path_));
    return out;
  }

  std::vector<Attempt> attempts(int64_t workload) const override {
    sqlite::Statement s(db(), ("SELECT m.id, m.created_at, " + measurement_columns() +
                               " FROM variants v JOIN measurements m ON m.variant_id = v.id "
                               "WHERE v.workload_id = ?1 ORDER BY m.id"));
    s.bind(1, workload);
    std::vector<Attempt> out;
    while (s.step()) out.push_back({s.int64(0), s.text(1), read_measurement(s, 2, path_)});
    return out;
  }

  void store_counters(int64_t workload, uint64_t config_index, const std::string& config_json,
                      const StoredCounters& counters) override {
    require_writable("store counters");
    sqlite::Transaction tx(db());
    sqlite::Statement variant(db(), kVariantUpsert);
    variant.bind(1, workload).bind(2, to_db(config_index)).bind(3, config_json);
    if (!variant.step()) db().fail("variant upsert returned no row");
    const int64_t variant_id = variant.int64(0);
    variant.reset();
    sqlite::Statement profile(
        db(),
        "INSERT INTO profiles (variant_id, measurement_id, source, wall_s) "
        "VALUES (?1, (SELECT MAX(id) FROM measurements WHERE variant_id = ?1), "
        "?2, ?3) RETURNING id");
    profile.bind(1, variant_id).bind(2, counters.source).bind(3, counters.wall_s);
    if (!profile.step()) db().fail("profile insert returned no row");
    const int64_t profile_id = profile.int64(0);
    profile.reset();
    sqlite::Statement value(
        db(), "INSERT INTO profile_counters (profile_id, metric, value) VALUES (?1, ?2, ?3)");
    for (const auto& [metric, v] : counters.values) {
      value.bind(1, profile_id).bind(2, metric).bind(3, v).run();
      value.reset();
    }
    tx.commit();
  }

  std::optional<StoredCounters> counters(int64_t workload, uint64_t config_index) const override {
    sqlite::Statement p(
        db(),
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
    sqlite::Statement v(db(), "SELECT metric, value FROM profile_counters WHERE profile_id = ?1");
    v.bind(1, profile_id);
    while (v.step()) out.values[v.text(0)] = v.real(1);
    return out;
  }

  std::map<uint64_t, StoredCounters> all_counters(int64_t workload) const override {
    sqlite::Statement s(db(),
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

  int64_t record_search(int64_t workload, const SearchRecord& r) override {
    require_writable("record a search");
    sqlite::Transaction tx(db());
    sqlite::Statement s(db(),
                        "INSERT INTO searches (workload_id, strategy, seed, evaluated, reused, "
                        "interrupted) VALUES (?1, ?2, ?3, 0, 0, 1) RETURNING id");
    s.bind(1, workload).bind(2, r.strategy).bind(3, to_db(r.seed));
    if (!s.step()) db().fail("search insert returned no row");
    const int64_t id = s.int64(0);
    s.reset();
    write_search(id, r);
    tx.commit();
    return id;
  }

  void update_search(int64_t search, const SearchRecord& r) override {
    require_writable("record a search");
    sqlite::Transaction tx(db());
    write_search(search, r);
    tx.commit();
  }

  std::optional<double> copy_bandwidth(const DeviceInfo& device) const override {
    sqlite::Statement s(db(), "SELECT copy_bandwidth_gbs FROM devices WHERE key = ?1");
    s.bind(1, device.key());
    if (!s.step() || s.is_null(0)) return std::nullopt;
    return s.real(0);
  }

  void set_copy_bandwidth(const DeviceInfo& device, double gbs) override {
    require_writable("store a copy bandwidth");
    sqlite::Transaction tx(db());
    int64_t id = upsert_device(device);
    sqlite::Statement s(
        db(),
        "UPDATE devices SET copy_bandwidth_gbs = ?1, "
        "bandwidth_measured_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?2");
    s.bind(1, gbs).bind(2, id).run();
    tx.commit();
  }

  std::vector<WorkloadSummary> workloads(const std::string& spec_hash,
                                         const std::string& problem_json) const override {
    // attempts: every measurement row; ok: configs whose latest attempt is ok.
    sqlite::Statement s(db(), R"sql(
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
      w.key.problem_json = stored_json_object(
          s.text(6), path_, "the problem values of workload " + std::to_string(w.id));
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
  const sqlite::Database& db() const { return *db_; }

  void require_writable(const char* what) const {
    if (read_only_) {
      throw Error(ErrorCode::kDb, path_ + ": opened read-only, cannot " + std::string(what));
    }
  }

  // Inside a transaction.
  void write_search(int64_t id, const SearchRecord& r) {
    sqlite::Statement s(
        db(),
        "UPDATE searches SET strategy = ?2, seed = ?3, evaluated = ?4, reused = ?5, wall_s = ?6, "
        "compile_s = ?7, check_s = ?8, time_s = ?9, interrupted = ?10, cache_hits = ?11, "
        "jobs = ?12, gpus = ?13, worker_restarts = ?14, measuring_s = ?15, gpu_busy_s = ?16, "
        "gpu_idle_share = ?17 WHERE id = ?1");
    s.bind(1, id).bind(2, r.strategy).bind(3, to_db(r.seed)).bind(4, r.evaluated);
    s.bind(5, r.reused).bind(6, r.wall_s).bind(7, r.compile_s).bind(8, r.check_s);
    s.bind(9, r.time_s).bind(10, r.interrupted ? 1 : 0).bind(11, r.cache_hits);
    s.bind(12, r.jobs).bind(13, r.gpus).bind(14, r.worker_restarts).bind(15, r.measuring_s);
    s.bind(16, r.gpu_busy_s).bind(17, r.gpu_idle_share()).run();
    if (db().changes() != 1) {
      throw Error(ErrorCode::kDb, path_ + ": no search " + std::to_string(id) + " to update");
    }
  }

  std::optional<int64_t> find_workload(const WorkloadKey& key) const {
    sqlite::Statement s(db(),
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
    sqlite::Statement s(
        db(),
        "INSERT INTO devices (key, name, uuid, cc_major, cc_minor, sm_count, l2_bytes, "
        "memory_bytes, driver_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
        "ON CONFLICT (key) DO UPDATE SET uuid = excluded.uuid, "
        "l2_bytes = excluded.l2_bytes, memory_bytes = excluded.memory_bytes "
        "RETURNING id");
    s.bind(1, d.key()).bind(2, d.name).bind(3, d.uuid).bind(4, d.cc_major).bind(5, d.cc_minor);
    s.bind(6, d.sm_count).bind(7, d.l2_bytes).bind(8, d.memory_bytes).bind(9, d.driver_version);
    if (!s.step()) db().fail("device upsert returned no row");
    int64_t id = s.int64(0);
    s.reset();
    return id;
  }

  Measurement load_measurement(int64_t measurement_id) const {
    sqlite::Statement s(
        db(), ("SELECT " + measurement_columns() +
               " FROM measurements m JOIN variants v ON v.id = m.variant_id WHERE m.id = ?1"));
    s.bind(1, measurement_id);
    if (!s.step()) {
      throw Error(ErrorCode::kDb, path_ + ": no measurement " + std::to_string(measurement_id));
    }
    return read_measurement(s, 0, path_);
  }

  std::string path_;
  bool read_only_;
  std::unique_ptr<sqlite::Database> db_;
};

}  // namespace

std::unique_ptr<Store> open_sqlite_store(const std::string& path, bool read_only) {
  return std::make_unique<SqliteStore>(path, read_only);
}

}  // namespace gputune
