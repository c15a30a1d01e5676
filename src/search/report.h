#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gputune/device.h"
#include "gputune/measurement.h"
#include "space/problem.h"
#include "store/store.h"
#include "strategy/prior_pruning.h"

namespace gputune {

struct ReportRow {
  Measurement measurement;
  double gbs = 0;              // from the spec's bytes metric; 0 without it
  double bandwidth_share = 0;  // gbs over the device's copy bandwidth
  double gflops = 0;
  double speedup = 0;  // baseline median over this median
};

struct Report {
  std::string title;  // spec path and problem values
  DeviceInfo device;
  double copy_bandwidth_gbs = 0;
  std::optional<Measurement> baseline;
  std::vector<ReportRow> ok;  // fastest first
  std::vector<Measurement> failed;
  std::map<std::string, int64_t> status_counts;
  // Left out before compiling: by a device limit, or by the prior data (prior_pruning).
  std::vector<PrunedConfigs> pruned;
  // How the prior data pruned the search (docs/pruning.md); without prior data, skipped.
  PruneResult prior_pruning;
  // The rules' pick every strategy proposed first: its config, and per knob the rule that set
  // it (space/rule_pick.h); empty config where there was none.
  std::string rule_pick_config;
  std::vector<std::pair<std::string, std::string>> rule_pick;  // knob, "value: rule"
  std::optional<SearchRecord> search;
  bool outputs_checked = true;  // false under `check: none`: said loudly in table and JSON
  // The check as --check/--atol/--rtol changed it ("--atol 0.01"), with the tolerances it
  // compared with; empty: the spec's own check (not shown).
  std::string check_override;
  double rtol = 0, atol = 0;
};

struct Metrics {
  std::function<double(uint64_t)> bytes, flops;  // per config index; empty when unknown
};

// "spaces/transpose.yaml n=8192": the spec and its problem values.
std::string report_title(const Problem& problem);
// The spec's bytes and flops metrics per config; `problem` must outlive the result.
Metrics metrics_of(const Problem& problem);

Report make_report(std::string title, const DeviceInfo& device, double copy_bandwidth_gbs,
                   const std::optional<Measurement>& baseline,
                   const std::vector<Measurement>& measurements, const Metrics& metrics);

std::string config_text(const std::string& config_json);  // {"A":1,"B":"x"} -> "A=1 B=x"
// "pruned: 12 configs exceed 1024 threads per block\n" per limit; "" when none pruned any.
std::string pruned_text(const std::vector<PrunedConfigs>& pruned);
nlohmann::json pruned_json(const std::vector<PrunedConfigs>& pruned);
// "prior: 2 workloads ... held-out check ...\n": what pruning by the prior used and found;
// "" where there was no prior data.
std::string prior_pruning_text(const PruneResult& pruning);
nlohmann::json prior_pruning_json(const PruneResult& pruning);
// One measurement as the JSON report writes it (a row of "results" or "failed").
nlohmann::json measurement_json(const Measurement& m);
std::string format_table(const Report& report, size_t top);
// "racing: N variants cut short ...\nfinal: ...\n"; "" for a search without racing.
std::string racing_text(const Report& report);
// Each distinct compiler warning, indented, after the variants that got it; "" when none did.
std::string format_warnings(const std::vector<Measurement>& measurements);
std::string format_warnings(const Report& report);          // its baseline and every stored variant
std::string format_json(const Report& report, size_t top);  // one JSON document

}  // namespace gputune
