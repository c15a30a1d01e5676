#pragma once
// What `gputune analyze --all | --top | --configs` prints: progress and a summary on stderr,
// the table or JSON on stdout.
#include <string>

#include "gputune/analysis.h"

namespace gputune::cli {

void print_analyze_progress(const AnalyzeProgress& progress);
std::string analyze_many_table(const AnalyzeManyOutcome& outcome);
std::string analyze_many_json(const AnalyzeManyOutcome& outcome);
std::string analyze_many_summary(const AnalyzeManyOutcome& outcome, const std::string& db);

}  // namespace gputune::cli
