#include "search/stored_results.h"

#include <utility>

namespace gputune {

StoredResults::StoredResults(std::vector<Measurement> stored, bool force) : force_(force) {
  for (auto& m : stored) latest_.emplace(m.config_index, std::move(m));
}

const Measurement* StoredResults::reusable(uint64_t index) const {
  auto found = latest_.find(index);
  if (found == latest_.end() || (force_ && !measured_now_.count(index))) return nullptr;
  return &found->second;
}

const Measurement* StoredResults::latest(uint64_t index) const {
  auto found = latest_.find(index);
  return found == latest_.end() ? nullptr : &found->second;
}

void StoredResults::add_measured(const Measurement& m) {
  latest_[m.config_index] = m;
  measured_now_.insert(m.config_index);
}

}  // namespace gputune
