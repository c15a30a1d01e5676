#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gputune/device.h"
#include "gputune/measurement.h"
#include "store/search_record.h"

namespace gputune {

// What changes results: the spec (and kernel source), the problem values, the device and
// the toolchain.
struct WorkloadKey {
  std::string spec_hash;
  std::string source_hash;
  std::string spec_path;     // informational; a database keeps it absolute when it names a file
  std::string spec_text;     // kept so a database explains itself
  std::string kernel_name;   // informational
  std::string problem_json;  // {"n":8192}
  DeviceInfo device;
  std::string nvrtc_version;
};

struct WorkloadSummary {
  int64_t id = 0;
  WorkloadKey key;
  int64_t attempts = 0, ok = 0;
  std::optional<Measurement> best;  // the fastest ok variant
  std::optional<Measurement> baseline;
  uint64_t baseline_index = 0;
  std::string created_at;
};

// One stored attempt at a variant, for histories (best-so-far against evaluations or time).
struct Attempt {
  int64_t id = 0;          // increases in the order attempts were stored
  std::string created_at;  // UTC, ISO 8601, to the second
  Measurement measurement;
};

// Hardware counters of one launch of a variant (gputune analyze).
struct StoredCounters {
  std::string source;                    // "ncu"
  double wall_s = 0;                     // what taking them cost
  int64_t measurement_id = 0;            // the measurement they explain; 0: none stored yet
  std::map<std::string, double> values;  // metric -> value in base units
};

class Store {
 public:
  virtual ~Store() = default;
  // Finds or creates the workload; also records the device.
  virtual int64_t workload(const WorkloadKey& key) = 0;
  virtual void set_baseline(int64_t workload, uint64_t config_index) = 0;
  // One transaction: every measurement lands or none does. A later commit of the same
  // config index adds an attempt; the latest attempt is the one that counts.
  virtual void commit(int64_t workload, const std::vector<Measurement>& measurements) = 0;
  // The latest attempt of every config measured for the workload.
  virtual std::vector<Measurement> measured(int64_t workload) const = 0;
  // Every attempt for the workload, oldest first. The default (stores that keep no history)
  // is measured() in config order without times.
  virtual std::vector<Attempt> attempts(int64_t workload) const {
    std::vector<Attempt> out;
    for (auto& m : measured(workload)) {
      out.push_back({static_cast<int64_t>(out.size()) + 1, "", std::move(m)});
    }
    return out;
  }
  // A search is recorded as it starts, with `record` as it stands then (the search records
  // itself as interrupted, without a wall time, until it ends), so that one killed on the way
  // still leaves its row; returns the row's id for update_search.
  virtual int64_t record_search(int64_t workload, const SearchRecord& record) = 0;
  // Writes a recorded search's figures as they are now.
  virtual void update_search(int64_t search, const SearchRecord& record) = 0;
  // Counters of a variant, keyed by its latest measurement. Stores that keep none ignore them.
  virtual void store_counters(int64_t /*workload*/, uint64_t /*config_index*/,
                              const std::string& /*config_json*/,
                              const StoredCounters& /*counters*/) {}
  // The latest counters of a variant.
  virtual std::optional<StoredCounters> counters(int64_t /*workload*/,
                                                 uint64_t /*config_index*/) const {
    return std::nullopt;
  }
  // The latest counters of every profiled variant of the workload, by config index.
  virtual std::map<uint64_t, StoredCounters> all_counters(int64_t /*workload*/) const { return {}; }

  virtual std::optional<double> copy_bandwidth(const DeviceInfo& device) const = 0;  // GB/s
  virtual void set_copy_bandwidth(const DeviceInfo& device, double gbs) = 0;

  // Every workload (or those of one spec hash and problem), with its best variant.
  virtual std::vector<WorkloadSummary> workloads(const std::string& spec_hash = "",
                                                 const std::string& problem_json = "") const = 0;
};

// Opens or creates a database file (":memory:" for tests). Throws Error(kDb) for a file that
// is not a gputune database or has a newer schema.
std::unique_ptr<Store> open_sqlite_store(const std::string& path, bool read_only = false);

}  // namespace gputune
