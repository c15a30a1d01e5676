#include "cli/analyze_many_output.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gputune/json_text.h"

namespace gputune::cli {
namespace {

// {"TILE":32,"PAD":1} as TILE=32,PAD=1, the way --configs and --config take it.
std::string assignments(const std::string& config_json) {
  std::string out;
  const nlohmann::json config = nlohmann::json::parse(config_json);  // outlives items()
  for (const auto& [name, value] : config.items()) {
    out += (out.empty() ? "" : ",") + name + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

}  // namespace

void print_analyze_progress(const AnalyzeProgress& p) {
  const double rate = p.elapsed_s > 0 ? p.done / p.elapsed_s : 0;
  std::fprintf(stderr, "profiled %zu of %zu (%zu failed), %.1f s, %.2f variants/s\n", p.profiled,
               p.total, p.failed, p.elapsed_s, rate);
}

std::string analyze_many_table(const AnalyzeManyOutcome& outcome) {
  size_t width = 6;
  std::vector<std::string> configs;
  for (const AnalysisOutcome& v : outcome.variants) {
    configs.push_back(assignments(v.config));
    width = std::max(width, configs.back().size());
  }
  std::ostringstream out;
  out << std::left << std::setw(width) << "config"
      << "  " << std::right << std::setw(10) << "median_ms"
      << "  " << std::left << std::setw(20) << "bottleneck"
      << "  key number\n";
  for (size_t i = 0; i < outcome.variants.size(); ++i) {
    const AnalysisOutcome& v = outcome.variants[i];
    out << std::left << std::setw(width) << configs[i] << "  " << std::right << std::setw(10);
    if (outcome.median_ms[i] > 0) {
      out << std::fixed << std::setprecision(4) << outcome.median_ms[i];
    } else {
      out << "-";
    }
    out << "  " << std::left << std::setw(20) << (v.profiled ? v.step : "(no counters)") << "  "
        << (v.profiled ? v.key_number : v.message) << "\n";
  }
  return out.str();
}

nlohmann::json analysis_json(const AnalysisOutcome& outcome) {
  return {{"config", nlohmann::json::parse(outcome.config)},
          {"profiled", outcome.profiled},
          {"message", outcome.message},
          {"step", outcome.step},
          {"verdict", outcome.verdict},
          {"knobs", outcome.knobs},
          {"counters", outcome.counters},
          {"profile_s", outcome.profile_s},
          {"source", outcome.source},
          {"stored", outcome.stored}};
}

std::string analyze_many_json(const AnalyzeManyOutcome& outcome) {
  nlohmann::json variants = nlohmann::json::array();
  for (size_t i = 0; i < outcome.variants.size(); ++i) {
    const AnalysisOutcome& v = outcome.variants[i];
    nlohmann::json entry = analysis_json(v);
    entry["key_number"] = v.key_number;
    if (outcome.median_ms[i] > 0) entry["median_ms"] = outcome.median_ms[i];
    variants.push_back(entry);
  }
  nlohmann::json document = {{"variants", variants},
                             {"requested", outcome.variants.size()},
                             {"profiled", outcome.profiled},
                             {"failed", outcome.failed},
                             {"compile_failed", outcome.compile_failed},
                             {"batches", outcome.batches},
                             {"compile_s", outcome.compile_s},
                             {"compile_cached", outcome.compile_cached},
                             {"already_profiled", outcome.already_profiled},
                             {"profile_s", outcome.profile_s},
                             {"interrupted", outcome.interrupted},
                             {"unavailable", outcome.unavailable}};
  return json_text(document, 2) + "\n";
}

std::string analyze_many_summary(const AnalyzeManyOutcome& outcome, const std::string& db) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << "gputune analyze: " << outcome.profiled << " of " << outcome.variants.size()
      << " variants profiled in " << outcome.batches << " ncu runs (" << outcome.profile_s
      << " s profiling";
  if (outcome.profile_s > 0 && outcome.profiled > 0) {
    out << ", " << std::setprecision(2) << outcome.profiled / outcome.profile_s << " variants/s"
        << std::setprecision(1);
  }
  out << "; " << outcome.compile_s << " s compiling, " << outcome.compile_cached
      << " modules from the cache)";
  if (outcome.compile_failed > 0) out << ", " << outcome.compile_failed << " did not compile";
  if (outcome.failed > 0) out << ", " << outcome.failed << " failed";
  if (outcome.interrupted) out << ", interrupted";
  if (outcome.already_profiled > 0) {
    out << "; " << outcome.already_profiled << " left out, their counters already stored";
  }
  size_t stored = 0;
  for (const AnalysisOutcome& v : outcome.variants) stored += v.stored;
  if (stored > 0) out << "; counters of " << stored << " stored in " << db;
  out << "\n";
  if (!outcome.unavailable.empty()) out << "gputune analyze: " << outcome.unavailable << "\n";
  if (outcome.profiled == 0 && stored == 0 && outcome.variants.size() > 0 &&
      outcome.unavailable.empty() && !outcome.interrupted) {
    out << "gputune analyze: no counters; the table's last column says why for each variant\n";
  }
  return out.str();
}

}  // namespace gputune::cli
