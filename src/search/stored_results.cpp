#include "search/stored_results.h"

#include <algorithm>
#include <utility>

#include "replay/replay.h"

namespace gputune {

StoredResults::StoredResults(std::vector<Measurement> stored, bool force, bool reuse_cut_short)
    : force_(force), reuse_cut_short_(reuse_cut_short) {
  for (auto& m : stored) {
    if (is_unrecorded(m)) continue;  // a replay's "not in the recording": never measured
    consider(m);
    latest_.emplace(m.config_index, std::move(m));
  }
}

const Measurement* StoredResults::reusable(uint64_t index) const {
  auto found = latest_.find(index);
  if (found == latest_.end()) return nullptr;
  const bool now = measured_now_.count(index) > 0;
  if (force_ && !now) return nullptr;
  if (found->second.cut_short && !reuse_cut_short_ && !now) return nullptr;
  return &found->second;
}

std::vector<Measurement> StoredResults::fastest_full(size_t k) const {
  std::vector<const Measurement*> full;
  for (const auto& [index, m] : latest_) {
    if (m.status == Status::kOk && !m.cut_short && !m.samples_ms.empty()) full.push_back(&m);
  }
  const auto faster = [](const Measurement* a, const Measurement* b) {
    const double ma = a->median_ms(), mb = b->median_ms();
    return ma != mb ? ma < mb : a->config_index < b->config_index;
  };
  const size_t n = std::min(k, full.size());
  std::partial_sort(full.begin(), full.begin() + n, full.end(), faster);
  std::vector<Measurement> out;
  for (size_t i = 0; i < n; ++i) out.push_back(*full[i]);
  return out;
}

void StoredResults::consider(const Measurement& m) {
  if (m.status != Status::kOk || m.cut_short || m.samples_ms.empty()) return;
  const double ms = m.median_ms();
  if (best_full_ms_ == 0 || ms < best_full_ms_) best_full_ms_ = ms;
}

const Measurement* StoredResults::latest(uint64_t index) const {
  auto found = latest_.find(index);
  return found == latest_.end() ? nullptr : &found->second;
}

void StoredResults::add_measured(const Measurement& m) {
  consider(m);
  latest_[m.config_index] = m;
  measured_now_.insert(m.config_index);
}

}  // namespace gputune
