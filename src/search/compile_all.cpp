#include <algorithm>
#include <unordered_map>

#include "compile/compiler_log.h"
#include "search/async_adapters.h"
#include "search/compile_outcome.h"
#include "search/progress_tracker.h"
#include "search/search.h"
#include "search/search_budget.h"

namespace gputune {

std::vector<Measurement> compile_all(const Problem& problem, Compiler& compiler,
                                     const std::string& arch, const ProgressCallback& progress,
                                     const std::atomic<bool>* stop, uint64_t limit) {
  const SearchSpace& space = problem.space();
  // `limit` stops the walk; the progress total may be an estimate (a huge space) and never does:
  // an estimate below the true count would leave valid variants out.
  const uint64_t total = limit > 0 ? std::min(limit, valid_total(space)) : valid_total(space);
  ProgressTracker tracker(total, progress);
  tracker.set_phase(SearchPhase::kCompiling);
  SerialCompiles serial(compiler);
  auto* service = dynamic_cast<CompileService*>(&compiler);
  CompileService& compiles = service != nullptr ? *service : serial;
  // Enough queued to keep every worker busy, few enough that Ctrl-C stops soon.
  const size_t ahead = 2 * compiles.parallelism();
  std::unordered_map<uint64_t, Variant> submitted;  // ticket -> variant
  std::vector<Measurement> results;
  uint64_t index = 0, taken = 0;
  while (true) {
    const bool stopping = stop && *stop;
    while (!stopping && submitted.size() < ahead && index < space.size() &&
           (limit == 0 || taken < limit)) {
      const uint64_t i = index++;
      if (!space.valid(i)) continue;
      ++taken;
      Variant variant = problem.variant(i);
      const uint64_t ticket = compiles.submit(compile_request(problem, variant, arch));
      submitted.emplace(ticket, std::move(variant));
    }
    if (submitted.empty() || stopping) break;
    for (auto& [ticket, kernel] : compiles.poll(100)) {
      auto it = submitted.find(ticket);
      if (it == submitted.end()) continue;
      Measurement m = compile_failure(it->second, kernel);
      if (kernel.ok) {
        m.status = Status::kOk;
        m.registers = kernel.registers;
        m.shared_bytes = kernel.shared_bytes;
        m.spill_bytes = kernel.spill_bytes;
        m.compiler_warnings = compiler_warnings(kernel.log);
      }
      submitted.erase(it);
      tracker.add(m, true);
      tracker.report();
      results.push_back(std::move(m));
    }
  }
  if (!submitted.empty()) compiles.cancel();
  std::sort(results.begin(), results.end(), [](const Measurement& a, const Measurement& b) {
    return a.config_index < b.config_index;
  });
  return results;
}

}  // namespace gputune
