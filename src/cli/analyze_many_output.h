#pragma once
// What `gputune analyze` prints: for many variants (--all | --top | --configs) progress and a
// summary on stderr, the table or JSON on stdout; one variant's JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "gputune/analysis.h"

namespace gputune::cli {

// One variant's analysis: config, profiled, message, step, verdict, knobs, counters, profile_s,
// stored.
nlohmann::json analysis_json(const AnalysisOutcome& outcome);

void print_analyze_progress(const AnalyzeProgress& progress);
std::string analyze_many_table(const AnalyzeManyOutcome& outcome);
std::string analyze_many_json(const AnalyzeManyOutcome& outcome);
std::string analyze_many_summary(const AnalyzeManyOutcome& outcome, const std::string& db);

}  // namespace gputune::cli
