#include "search/final_remeasure.h"

#include <algorithm>
#include <cmath>

#include "search/async_adapters.h"
#include "search/search_accounting.h"

namespace gputune {

std::vector<Measurement> remeasure_top(const Problem& problem, const std::string& arch,
                                       CompileService& compiles, Runner& runner,
                                       const RacingOptions& racing, StoredResults& stored,
                                       Store& store, int64_t workload, SearchRecord& record) {
  const std::vector<Measurement> top = stored.fastest_full(static_cast<size_t>(racing.top_k));
  if (top.size() < 2 || racing.final_rounds < 1) return {};
  // A rerun measures nothing twice: top variants that the final rounds of an earlier search
  // measured (none measured since) have already been decided.
  if (std::all_of(top.begin(), top.end(), [&](const Measurement& m) {
        return m.final_rounds >= racing.final_rounds;
      })) {
    return {};
  }
  std::vector<Candidate> candidates;
  std::vector<Measurement> combined;
  for (const Measurement& m : top) {
    Candidate c;
    c.variant = problem.variant(m.config_index);
    c.kernel = compile_now(compiles, compile_request(problem, c.variant, arch));
    if (!c.kernel.ok) continue;  // compiled before: only a vanished cache could fail here
    account_compilation(record, c.kernel);
    candidates.push_back(std::move(c));
    Measurement first = m;
    first.samples_ms.clear();
    first.check_ms = first.time_ms = 0;
    first.final_rounds = 0;
    first.cut_short = 0;
    combined.push_back(std::move(first));
  }
  std::vector<bool> failed(candidates.size(), false);
  const size_t n = candidates.size();
  for (int round = 0; round < racing.final_rounds; ++round) {
    std::vector<Candidate> order;
    std::vector<size_t> slot;
    for (size_t i = 0; i < n; ++i) {
      const size_t k = (i + static_cast<size_t>(round)) % n;
      if (failed[k]) continue;
      order.push_back(candidates[k]);
      slot.push_back(k);
    }
    const std::vector<Measurement> results = runner.run(order);
    for (size_t i = 0; i < results.size(); ++i) {
      const Measurement& r = results[i];
      Measurement& into = combined[slot[i]];
      account_measurement(record, r);
      if (r.status != Status::kOk || r.samples_ms.empty()) {
        failed[slot[i]] = true;
        continue;
      }
      into.samples_ms.insert(into.samples_ms.end(), r.samples_ms.begin(), r.samples_ms.end());
      into.check_ms += r.check_ms;
      into.time_ms += r.time_ms;
      ++into.final_rounds;
    }
  }
  std::vector<Measurement> done;
  for (size_t i = 0; i < n; ++i) {
    if (!failed[i] && combined[i].final_rounds == racing.final_rounds) {
      done.push_back(std::move(combined[i]));
    }
  }
  if (done.empty()) return {};
  store.commit(workload, done);
  for (const Measurement& m : done) stored.add_measured(m);
  std::sort(done.begin(), done.end(), [](const Measurement& a, const Measurement& b) {
    return a.median_ms() < b.median_ms();
  });
  return done;
}

}  // namespace gputune
