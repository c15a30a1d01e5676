#pragma once
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gputune/measurement.h"

namespace gputune {

// What the store already holds for the workload, and what this search measured: an
// evaluation found here is reused instead of measured again, unless the search is forced to
// measure again, and even then nothing is measured twice in one search. A stored variant cut
// short by racing is reused by a racing search (it was cut against a best no faster than
// today's, so it would be cut again) and measured again in full by a full-sampling search.
class StoredResults {
 public:
  StoredResults(std::vector<Measurement> stored, bool force, bool reuse_cut_short = true);

  // The result to reuse for `index`, or null when it must be measured.
  const Measurement* reusable(uint64_t index) const;
  // The latest result for `index`, measured or stored; null when none.
  const Measurement* latest(uint64_t index) const;
  bool contains(uint64_t index) const { return latest_.count(index) > 0; }
  void add_measured(const Measurement& m);
  // The fastest ok, full (not cut short) median so far, stored or measured; 0 when none.
  double best_full_ms() const { return best_full_ms_; }
  // The latest results of the `k` fastest ok, full variants, fastest first (ties by index).
  std::vector<Measurement> fastest_full(size_t k) const;

 private:
  void consider(const Measurement& m);

  bool force_, reuse_cut_short_;
  double best_full_ms_ = 0;
  std::unordered_map<uint64_t, Measurement> latest_;
  std::unordered_set<uint64_t> measured_now_;
};

}  // namespace gputune
