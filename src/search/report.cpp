#include "search/report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "compile/compiler_log.h"
#include "core/config_codec.h"
#include "gputune/json_text.h"
#include "search/search_bound.h"

namespace gputune {

namespace {

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

std::string first_line(const std::string& text) {
  // Compiler logs start with the file name; the first line that says "error" says most.
  std::istringstream in(text);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first;
}

nlohmann::json config_json_value(const std::string& text) {
  const std::optional<Config> config = config_from_json(text.empty() ? "{}" : text);
  if (!config) return text;  // not JSON: shown as the text it is
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : *config) out[name] = value;
  return out;
}

}  // namespace

nlohmann::json measurement_json(const Measurement& m) {
  nlohmann::json j;
  for (const MeasurementField& field : measurement_fields()) {
    if (!field.in_report) continue;
    switch (field.kind) {
      case FieldKind::kConfigIndex:
        j["index"] = field.of<uint64_t>(m);
        break;
      case FieldKind::kConfig:
        j["config"] = config_json_value(field.of<std::string>(m));
        break;
      case FieldKind::kStatus:
        j["status"] = status_name(field.of<Status>(m));
        break;
      case FieldKind::kSamples:
        if (!m.samples_ms.empty()) {
          j["median_ms"] = m.median_ms();
          j["spread"] = m.spread();
          j["samples"] = m.samples_ms.size();
        }
        break;
      case FieldKind::kReal:
        j[field.name] = field.of<double>(m);
        break;
      case FieldKind::kInteger:
        j[field.name] = field.of<int>(m);
        break;
      case FieldKind::kText:
        if (!field.of<std::string>(m).empty()) j[field.name] = field.of<std::string>(m);
        break;
    }
  }
  return j;
}

std::string report_title(const Problem& problem) {
  std::string title = problem.spec().path;
  for (const auto& [name, value] : problem.problem_values()) {
    title += " " + name + "=" + Value(value).text();
  }
  return title;
}

Metrics metrics_of(const Problem& problem) {
  Metrics metrics;
  if (problem.spec().bytes) metrics.bytes = [&](uint64_t i) { return problem.bytes(i); };
  if (problem.spec().flops) metrics.flops = [&](uint64_t i) { return problem.flops(i); };
  return metrics;
}

std::string config_text(const std::string& config_json) {
  std::optional<Config> config = config_from_json(config_json.empty() ? "{}" : config_json);
  if (!config) return config_json;
  // By name, as the tables have always listed them.
  std::sort(config->begin(), config->end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [name, value] : *config) {
    if (!out.empty()) out += ' ';
    out += name + "=" + symbol_text(value);
  }
  return out;
}

std::string pruned_text(const std::vector<PrunedConfigs>& pruned) {
  std::string out;
  for (const PrunedConfigs& p : pruned) {
    out += std::string("pruned: ") + (p.estimated ? "about " : "") + std::to_string(p.configs) +
           (p.configs == 1 ? " config " : " configs ") + p.reason +
           (p.estimated ? " (estimated from a sample: the space is too large to count)" : "") +
           "\n";
  }
  return out;
}

nlohmann::json pruned_json(const std::vector<PrunedConfigs>& pruned) {
  nlohmann::json out = nlohmann::json::array();
  for (const PrunedConfigs& p : pruned) {
    nlohmann::json row = {{"reason", p.reason}, {"configs", p.configs}};
    if (p.estimated) row["estimated"] = true;
    out.push_back(std::move(row));
  }
  return out;
}

namespace {
// Skipped for want of prior data: nothing to say, the search is as it always was.
bool nothing_to_say(const PruneResult& pruning) {
  return pruning.prior_workloads == 0 &&
         (pruning.skipped == "no prior data" || pruning.skipped == "--no-prior" ||
          pruning.skipped.empty());
}
}  // namespace

std::string prior_pruning_text(const PruneResult& p) {
  if (nothing_to_say(p)) return "";
  if (p.prior_workloads == 0) return "prior: not used to prune (" + p.skipped + ")\n";
  std::string labels;
  for (const std::string& label : p.prior_labels) labels += (labels.empty() ? "" : "; ") + label;
  std::string out = printf_string(
      "prior: %zu %s of this kernel, %zu measurements (%s); the model, fit on %zu of them in "
      "%.1f s, pruned %llu of %llu configs at %.3gx (",
      p.prior_workloads, p.prior_workloads == 1 ? "workload" : "workloads", p.prior_measurements,
      labels.c_str(), p.fit_points, p.seconds, static_cast<unsigned long long>(p.pruned.size()),
      static_cast<unsigned long long>(p.considered), p.factor);
  if (p.held_out > 0) {
    out += printf_string("its held-out check over %zu workloads needed %.3gx)\n", p.held_out,
                         p.held_out_factor);
  } else {
    out += "no held-out check: the prior's workloads share one place)\n";
  }
  return out;
}

nlohmann::json prior_pruning_json(const PruneResult& p) {
  nlohmann::json j = {{"pruned", p.pruned.size()},
                      {"considered", p.considered},
                      {"factor", p.factor},
                      {"reason", p.pruned.empty() ? "" : prune_reason(p)},
                      {"held_out_factor", p.held_out_factor},
                      {"held_out_workloads", p.held_out},
                      {"prior_workloads", p.prior_workloads},
                      {"prior_measurements", p.prior_measurements},
                      {"fit_points", p.fit_points},
                      {"prior", p.prior_labels},
                      {"seconds", p.seconds}};
  if (!p.skipped.empty()) j["skipped"] = p.skipped;
  return j;
}

Report make_report(std::string title, const DeviceInfo& device, double copy_bandwidth_gbs,
                   const std::optional<Measurement>& baseline,
                   const std::vector<Measurement>& measurements, const Metrics& metrics) {
  Report report;
  report.title = std::move(title);
  report.device = device;
  report.copy_bandwidth_gbs = copy_bandwidth_gbs;
  report.baseline = baseline;
  double baseline_ms = baseline && baseline->status == Status::kOk ? baseline->median_ms() : 0;
  for (const auto& m : measurements) {
    ++report.status_counts[status_name(m.status)];
    if (m.status != Status::kOk || m.samples_ms.empty()) {
      if (m.status != Status::kOk) report.failed.push_back(m);
      continue;
    }
    ReportRow row;
    row.measurement = m;
    double seconds = m.median_ms() / 1e3;
    if (metrics.bytes) row.gbs = metrics.bytes(m.config_index) / seconds / 1e9;
    if (metrics.flops) row.gflops = metrics.flops(m.config_index) / seconds / 1e9;
    if (copy_bandwidth_gbs > 0) row.bandwidth_share = row.gbs / copy_bandwidth_gbs;
    if (baseline_ms > 0) row.speedup = baseline_ms / m.median_ms();
    report.ok.push_back(std::move(row));
  }
  // A variant cut short by racing is never ranked as a full measurement: it comes after all
  // of them, still in the order of its (honest but few) samples' median.
  std::stable_sort(report.ok.begin(), report.ok.end(), [](const ReportRow& a, const ReportRow& b) {
    if (a.measurement.cut_short != b.measurement.cut_short) return b.measurement.cut_short != 0;
    return a.measurement.median_ms() < b.measurement.median_ms();
  });
  return report;
}

std::string racing_text(const Report& report) {
  size_t cut = 0, final_count = 0;
  int rounds = 0;
  for (const ReportRow& row : report.ok) {
    cut += row.measurement.cut_short != 0;
    if (row.measurement.final_rounds > 0) {
      ++final_count;
      rounds = std::max(rounds, row.measurement.final_rounds);
    }
  }
  std::string out;
  if (cut > 0) {
    out += printf_string(
        "racing: %zu %s cut short (slower than the best by more than the margin), ranked "
        "after the fully measured\n",
        cut, cut == 1 ? "variant" : "variants");
  }
  if (final_count > 0) {
    out += printf_string("final: the %zu fastest re-measured in %d interleaved rounds\n",
                         final_count, rounds);
  }
  return out;
}

std::string format_table(const Report& report, size_t top) {
  std::string out = report.title + "\n";
  out += "device: " + report.device.name + " (" + report.device.arch() + ", " +
         std::to_string(report.device.sm_count) + " SMs)";
  if (report.copy_bandwidth_gbs > 0) {
    out += printf_string(", copy bandwidth %.0f GB/s (measured)", report.copy_bandwidth_gbs);
  }
  out += "\n";
  const std::string check_said =
      report.check_override.empty() ? "check: none" : report.check_override;
  if (!report.outputs_checked) {
    out +=
        "WARNING: outputs NOT checked (" + check_said + "): the times are of unverified results\n";
  } else if (!report.check_override.empty()) {
    out += printf_string("check: %s (rtol %g, atol %g), not the spec's own\n",
                         report.check_override.c_str(), report.rtol, report.atol);
  }
  bool has_bytes =
      std::any_of(report.ok.begin(), report.ok.end(), [](const ReportRow& r) { return r.gbs > 0; });
  bool has_flops = std::any_of(report.ok.begin(), report.ok.end(),
                               [](const ReportRow& r) { return r.gflops > 0; });
  out += printf_string("%4s %11s %7s", "rank", "median_ms", "spread");
  if (has_bytes) out += printf_string(" %9s %6s", "GB/s", "%copy");
  if (has_flops) out += printf_string(" %9s", "GFLOP/s");
  out += printf_string(" %8s %5s %6s  %s\n", "speedup", "regs", "smem", "config");
  size_t shown = std::min(top, report.ok.size());
  for (size_t i = 0; i < shown; ++i) {
    const ReportRow& r = report.ok[i];
    const Measurement& m = r.measurement;
    out += printf_string("%4zu %11.4f %6.1f%%", i + 1, m.median_ms(), 100 * m.spread());
    if (has_bytes) out += printf_string(" %9.1f %5.1f%%", r.gbs, 100 * r.bandwidth_share);
    if (has_flops) out += printf_string(" %9.1f", r.gflops);
    out += printf_string(" %7.2fx %5d %6d  ", r.speedup, m.registers, m.shared_bytes);
    out += config_text(m.config);
    if (report.baseline && m.config_index == report.baseline->config_index) out += "  (baseline)";
    if (m.final_rounds > 0) out += printf_string("  (final: %d rounds)", m.final_rounds);
    if (m.cut_short) out += printf_string("  (cut short: %zu samples)", m.samples_ms.size());
    out += "\n";
  }
  if (report.ok.size() > shown) {
    out += printf_string("     ... %zu more ok variants\n", report.ok.size() - shown);
  }
  std::string counts;
  for (const auto& [status, count] : report.status_counts) {
    counts += (counts.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  }
  out += "variants: " + (counts.empty() ? std::string("none") : counts) + "\n";
  out += racing_text(report);
  out += pruned_text(report.pruned);
  out += prior_pruning_text(report.prior_pruning);
  if (!report.rule_pick_config.empty()) {
    out += "rule pick (proposed first): " + config_text(report.rule_pick_config) + "\n";
    for (const auto& [knob, rule] : report.rule_pick) out += "  " + knob + "=" + rule + "\n";
  }
  size_t failures_shown = 0;
  for (const auto& m : report.failed) {
    if (failures_shown++ == 5) {
      out += printf_string("  ... %zu more failures\n", report.failed.size() - 5);
      break;
    }
    const std::string what =
        m.status == Status::kCompileError ? first_error_line(m.message) : first_line(m.message);
    out += std::string("  ") + status_name(m.status) + ": " + config_text(m.config) + ": " + what +
           "\n";
  }
  if (report.search) {
    const SearchRecord& s = *report.search;
    // Compilation overlaps the GPU's work, so its figure is worker time, not a share of wall.
    out += printf_string(
        "search: %s, %lld measured, %lld reused from the database, %.1f s, %.1f measured/s "
        "(GPU: check %.1f s, time %.1f s, other %.1f s; compile %.1f s in %lld workers, "
        "%lld from the module cache",
        s.strategy.c_str(), static_cast<long long>(s.evaluated), static_cast<long long>(s.reused),
        s.wall_s, s.wall_s > 0 ? static_cast<double>(s.evaluated) / s.wall_s : 0.0, s.check_s,
        s.time_s, s.overhead_s(), s.compile_s, static_cast<long long>(std::max<int64_t>(s.jobs, 1)),
        static_cast<long long>(s.cache_hits));
    if (const double idle = s.gpu_idle_share(); !std::isnan(idle)) {
      out += printf_string("; GPU idle %.0f%% of %.1f s measuring", 100 * idle, s.measuring_s);
    }
    if (s.worker_restarts > 0) {
      out +=
          printf_string("; %lld GPU workers replaced", static_cast<long long>(s.worker_restarts));
    }
    out += printf_string(")%s\n", s.interrupted ? ", interrupted: run again to resume" : "");
    const SearchBound bound = search_bound(s);
    if (!bound.kind.empty()) out += "bound: " + bound.text + "\n";
  }
  return out;
}

std::string format_warnings(const std::vector<Measurement>& measurements) {
  constexpr size_t kConfigsShown = 3;
  std::vector<std::pair<std::string, std::vector<std::string>>> by_text;  // first seen first
  std::set<uint64_t> seen;
  for (const Measurement& m : measurements) {
    if (m.compiler_warnings.empty() || !seen.insert(m.config_index).second) continue;
    auto group = std::find_if(by_text.begin(), by_text.end(),
                              [&](const auto& g) { return g.first == m.compiler_warnings; });
    if (group == by_text.end()) group = by_text.insert(by_text.end(), {m.compiler_warnings, {}});
    group->second.push_back(config_text(m.config));
  }
  if (by_text.empty()) return "";
  std::string out = "compiler warnings (" + std::to_string(seen.size()) +
                    (seen.size() == 1 ? " variant" : " variants") + "):\n";
  for (const auto& [text, configs] : by_text) {
    std::string who;
    for (size_t i = 0; i < std::min(configs.size(), kConfigsShown); ++i) {
      who += (i > 0 ? "; " : "") + configs[i];
    }
    if (configs.size() > kConfigsShown) {
      who += printf_string(" and %zu more", configs.size() - kConfigsShown);
    }
    out += "  " + who + ":\n";
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      out += (line.empty() ? "" : "    ") + line + "\n";
    }
  }
  return out;
}

std::string format_warnings(const Report& report) {
  std::vector<Measurement> all;
  if (report.baseline) all.push_back(*report.baseline);
  for (const ReportRow& row : report.ok) all.push_back(row.measurement);
  all.insert(all.end(), report.failed.begin(), report.failed.end());
  return format_warnings(all);
}

std::string format_json(const Report& report, size_t top) {
  nlohmann::json j;
  j["title"] = report.title;
  j["device"] = {{"name", report.device.name},
                 {"arch", report.device.arch()},
                 {"sm_count", report.device.sm_count},
                 {"driver", report.device.driver_version},
                 {"copy_bandwidth_gbs", report.copy_bandwidth_gbs}};
  // Written only when false, so that reports of checked searches keep their shape.
  if (!report.outputs_checked) {
    j["outputs_checked"] = false;
    j["warning"] = "outputs NOT checked (" +
                   (report.check_override.empty() ? "check: none" : report.check_override) + ")";
  }
  if (!report.check_override.empty()) {
    j["check_override"] = {{"given", report.check_override}};
    if (report.outputs_checked) {
      j["check_override"]["rtol"] = report.rtol;
      j["check_override"]["atol"] = report.atol;
    }
  }
  if (report.baseline) j["baseline"] = measurement_json(*report.baseline);
  j["results"] = nlohmann::json::array();
  for (size_t i = 0; i < std::min(top, report.ok.size()); ++i) {
    const ReportRow& r = report.ok[i];
    nlohmann::json row = measurement_json(r.measurement);
    if (r.gbs > 0) row["gbs"] = r.gbs;
    if (r.bandwidth_share > 0) row["copy_bandwidth_share"] = r.bandwidth_share;
    if (r.gflops > 0) row["gflops"] = r.gflops;
    if (r.speedup > 0) row["speedup"] = r.speedup;
    j["results"].push_back(row);
  }
  j["failed"] = nlohmann::json::array();
  for (const auto& m : report.failed) j["failed"].push_back(measurement_json(m));
  j["status_counts"] = report.status_counts;
  if (!report.pruned.empty()) j["pruned"] = pruned_json(report.pruned);
  if (!nothing_to_say(report.prior_pruning)) {
    j["prior_pruning"] = prior_pruning_json(report.prior_pruning);
  }
  if (!report.rule_pick_config.empty()) {
    j["rule_pick_config"] = nlohmann::json::parse(report.rule_pick_config);
    j["rule_pick"] = nlohmann::json::object();
    for (const auto& [knob, rule] : report.rule_pick) j["rule_pick"][knob] = rule;
  }
  if (report.search) {
    const SearchRecord& s = *report.search;
    j["search"] = {
        {"strategy", s.strategy},
        {"seed", s.seed},
        {"evaluated", s.evaluated},
        {"reused", s.reused},
        {"wall_s", s.wall_s},
        {"compile_s", s.compile_s},
        {"run_s", s.time_s + s.check_s},
        {"interrupted", s.interrupted},
        {"check_s", s.check_s},
        {"time_s", s.time_s},
        {"overhead_s", s.overhead_s()},
        {"cache_hits", s.cache_hits},
        {"jobs", s.jobs},
        {"gpus", s.gpus},
        {"worker_restarts", s.worker_restarts},
        {"measured_per_s", s.wall_s > 0 ? static_cast<double>(s.evaluated) / s.wall_s : 0.0}};
    if (const double idle = s.gpu_idle_share(); !std::isnan(idle)) {
      j["search"]["measuring_s"] = s.measuring_s;
      j["search"]["gpu_busy_s"] = s.gpu_busy_s;
      j["search"]["gpu_idle_share"] = idle;
    }
    if (const SearchBound bound = search_bound(s); !bound.kind.empty()) {
      j["bound"] = {{"kind", bound.kind},
                    {"gpu_busy", bound.gpu_busy},
                    {"workers_occupied", bound.workers_occupied},
                    {"compile_busy", bound.compile_busy},
                    {"twice_the_gpus", bound.twice_the_gpus},
                    {"twice_the_cpus", bound.twice_the_cpus},
                    {"text", bound.text}};
    }
  }
  return json_text(j, 2);
}

}  // namespace gputune
