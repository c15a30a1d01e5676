#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compile/compile_service.h"
#include "run/runner.h"
#include "search/search.h"
#include "search/stored_results.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {

// The final interleaved re-measurement that decides the winner: the `top_k` fastest full
// measurements (stored or measured now) run round-robin, one sampling of each per round, for
// `final_rounds` rounds, each round starting one variant later; so drift and throttling fall
// on every candidate alike. Each variant's samples from every round become one new attempt
// with `final_rounds` set, committed to the store, where, as the latest attempt, it is the
// variant's measurement from then on. A variant that fails in a round keeps its earlier
// measurement. Returns the new attempts, fastest first; none with fewer than 2 candidates, and
// none where every one of the top was measured by earlier final rounds (a completed search
// run again measures nothing).
std::vector<Measurement> remeasure_top(const Problem& problem, const std::string& arch,
                                       CompileService& compiles, Runner& runner,
                                       const RacingOptions& racing, StoredResults& stored,
                                       Store& store, int64_t workload, SearchRecord& record);

}  // namespace gputune
