// The release database file, as docs/release-format.md lays it out: written once by the
// builder, read back whole for the dump.
#include "release/release_db.h"

#include <cstdint>
#include <string>

#include "core/sqlite.h"
#include "gputune/error.h"

namespace gputune {

void write_release_db(const Release& release, const std::string& path) {
  const sqlite::Database db(path, sqlite::Mode::kReadWrite);
  // One file, no journal left beside it: the builder renames it into place when complete.
  db.exec("PRAGMA journal_mode = OFF");
  db.exec("PRAGMA application_id = " + std::to_string(kReleaseApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(kReleaseFormat));
  sqlite::Transaction tx(db);
  db.exec(kReleaseSchema);
  {
    sqlite::Statement s(db, "INSERT INTO meta (key, value) VALUES (?1, ?2)");
    for (const auto& [key, value] : release.meta) {
      s.bind(1, key).bind(2, value).run();
      s.reset();
    }
  }
  {
    sqlite::Statement s(db,
                        "INSERT INTO kernels (id, name, source_hash, space_hash, spec_json) "
                        "VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const ReleaseKernel& k : release.kernels) {
      s.bind(1, k.id).bind(2, k.name).bind(3, k.source_hash).bind(4, k.space_hash);
      s.bind(5, k.spec_json).run();
      s.reset();
    }
  }
  {
    sqlite::Statement s(db,
                        "INSERT INTO devices (id, name, cc_major, cc_minor, sm_count, toolchain) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    for (const ReleaseDevice& d : release.devices) {
      s.bind(1, d.id).bind(2, d.name).bind(3, d.cc_major).bind(4, d.cc_minor);
      s.bind(5, d.sm_count).bind(6, d.toolchain).run();
      s.reset();
    }
  }
  {
    sqlite::Statement s(db,
                        "INSERT INTO configs (id, kernel_id, config_json, is_baseline) "
                        "VALUES (?1, ?2, ?3, ?4)");
    for (const ReleaseConfig& c : release.configs) {
      s.bind(1, c.id).bind(2, c.kernel_id).bind(3, c.config_json);
      s.bind(4, c.is_baseline ? 1 : 0).run();
      s.reset();
    }
  }
  {
    sqlite::Statement s(db,
                        "INSERT INTO choices (kernel_id, device_id, problem_json, rank, config_id, "
                        "median_ms, spread, speedup_over_baseline, margin_to_runner_up, registers, "
                        "shared_bytes, provenance) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    for (const ReleaseChoice& c : release.choices) {
      s.bind(1, c.kernel_id).bind(2, c.device_id).bind(3, c.problem_json).bind(4, c.rank);
      s.bind(5, c.config_id).bind(6, c.median_ms).bind(7, c.spread);
      s.bind(8, c.speedup_over_baseline).bind(9, c.margin_to_runner_up);
      s.bind(10, c.registers).bind(11, c.shared_bytes).bind(12, c.provenance).run();
      s.reset();
    }
  }
  {
    sqlite::Statement s(db,
                        "INSERT INTO observations (kernel_id, device_id, problem_json, "
                        "config_json, median_ms) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const ReleaseObservation& o : release.observations) {
      s.bind(1, o.kernel_id).bind(2, o.device_id).bind(3, o.problem_json);
      s.bind(4, o.config_json).bind(5, o.median_ms).run();
      s.reset();
    }
  }
  {
    sqlite::Statement s(db,
                        "INSERT INTO code (config_id, target, kind, entry, image, registers, "
                        "shared_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (const ReleaseCode& c : release.code) {
      s.bind(1, c.config_id).bind(2, c.target).bind(3, c.kind).bind(4, c.entry);
      s.bind_blob(5, c.image).bind(6, c.registers).bind(7, c.shared_bytes).run();
      s.reset();
    }
  }
  tx.commit();
}

Release read_release_db(const std::string& path) {
  const sqlite::Database db(path, sqlite::Mode::kReadOnly);
  int64_t application_id = 0;
  try {
    application_id = db.pragma("application_id");
  } catch (const Error&) {
    db.fail("not a gputune release database (not an SQLite file)");
  }
  if (application_id != kReleaseApplicationId) {
    db.fail("not a gputune release database (application_id " + std::to_string(application_id) +
            "; `gputune release` writes one)");
  }
  const int64_t format = db.pragma("user_version");
  if (format > kReleaseFormat) {
    db.fail("has release format " + std::to_string(format) + ", newer than this gputune's " +
            std::to_string(kReleaseFormat) + "; read it with a newer gputune");
  }
  Release r;
  {
    sqlite::Statement s(db, "SELECT key, value FROM meta ORDER BY key");
    while (s.step()) r.meta[s.text(0)] = s.text(1);
  }
  {
    sqlite::Statement s(
        db, "SELECT id, name, source_hash, space_hash, spec_json FROM kernels ORDER BY id");
    while (s.step()) r.kernels.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  }
  {
    sqlite::Statement s(
        db, "SELECT id, name, cc_major, cc_minor, sm_count, toolchain FROM devices ORDER BY id");
    while (s.step()) {
      r.devices.push_back(
          {s.int64(0), s.text(1), s.integer(2), s.integer(3), s.integer(4), s.text(5)});
    }
  }
  {
    sqlite::Statement s(db,
                        "SELECT id, kernel_id, config_json, is_baseline FROM configs ORDER BY id");
    while (s.step()) r.configs.push_back({s.int64(0), s.int64(1), s.text(2), s.integer(3) != 0});
  }
  {
    sqlite::Statement s(
        db,
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
    sqlite::Statement s(db,
                        "SELECT kernel_id, device_id, problem_json, config_json, median_ms "
                        "FROM observations ORDER BY rowid");
    while (s.step()) {
      r.observations.push_back({s.int64(0), s.int64(1), s.text(2), s.text(3), s.real(4)});
    }
  }
  {
    sqlite::Statement s(db,
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
