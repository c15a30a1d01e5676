#pragma once
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gputune/measurement.h"

namespace gputune {

// What the store already holds for the workload, and what this search measured: an
// evaluation found here is reused instead of measured again, unless the search is forced to
// measure again, and even then nothing is measured twice in one search.
class StoredResults {
 public:
  StoredResults(std::vector<Measurement> stored, bool force);

  // The result to reuse for `index`, or null when it must be measured.
  const Measurement* reusable(uint64_t index) const;
  // The latest result for `index`, measured or stored; null when none.
  const Measurement* latest(uint64_t index) const;
  bool contains(uint64_t index) const { return latest_.count(index) > 0; }
  void add_measured(const Measurement& m);

 private:
  bool force_;
  std::unordered_map<uint64_t, Measurement> latest_;
  std::unordered_set<uint64_t> measured_now_;
};

}  // namespace gputune
