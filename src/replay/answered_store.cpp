#include <algorithm>

#include "replay/replay.h"

namespace gputune {
namespace {

constexpr const char* kNotRecorded = "not in the recording";

// Forwards everything to `store` except the answers a replay could not give: a config left out
// of the commit is one a later real run still measures.
class AnsweredStore : public Store {
 public:
  explicit AnsweredStore(Store& store) : store_(store) {}

  int64_t workload(const WorkloadKey& key) override { return store_.workload(key); }
  void set_baseline(int64_t workload, uint64_t config_index) override {
    store_.set_baseline(workload, config_index);
  }
  void commit(int64_t workload, const std::vector<Measurement>& measurements) override {
    std::vector<Measurement> answered;
    std::copy_if(measurements.begin(), measurements.end(), std::back_inserter(answered),
                 [](const Measurement& m) { return !is_unrecorded(m); });
    if (!answered.empty()) store_.commit(workload, answered);
  }
  std::vector<Measurement> measured(int64_t workload) const override {
    return store_.measured(workload);
  }
  std::vector<Attempt> attempts(int64_t workload) const override {
    return store_.attempts(workload);
  }
  int64_t record_search(int64_t workload, const SearchRecord& record) override {
    return store_.record_search(workload, record);
  }
  void update_search(int64_t search, const SearchRecord& record) override {
    store_.update_search(search, record);
  }
  void store_counters(int64_t workload, uint64_t config_index, const std::string& config_json,
                      const StoredCounters& counters) override {
    store_.store_counters(workload, config_index, config_json, counters);
  }
  std::optional<StoredCounters> counters(int64_t workload, uint64_t config_index) const override {
    return store_.counters(workload, config_index);
  }
  std::map<uint64_t, StoredCounters> all_counters(int64_t workload) const override {
    return store_.all_counters(workload);
  }
  std::optional<double> copy_bandwidth(const DeviceInfo& device) const override {
    return store_.copy_bandwidth(device);
  }
  void set_copy_bandwidth(const DeviceInfo& device, double gbs) override {
    store_.set_copy_bandwidth(device, gbs);
  }
  std::vector<WorkloadSummary> workloads(const std::string& spec_hash,
                                         const std::string& problem_json) const override {
    return store_.workloads(spec_hash, problem_json);
  }

 private:
  Store& store_;
};

}  // namespace

Measurement unrecorded(uint64_t config_index, const std::string& config) {
  Measurement m;
  m.config_index = config_index;
  m.config = config;
  m.status = Status::kRuntimeError;
  m.message = kNotRecorded;
  return m;
}

bool is_unrecorded(const Measurement& m) {
  return m.status == Status::kRuntimeError && m.message == kNotRecorded;
}

std::unique_ptr<Store> keep_answered(Store& store) {
  return std::make_unique<AnsweredStore>(store);
}

}  // namespace gputune
