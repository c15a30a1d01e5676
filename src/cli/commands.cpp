#include "cli/commands.h"

#include <sysexits.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli/interrupt.h"
#include "cli/progress.h"
#include "gputune/error.h"
#include "gputune/results.h"
#include "gputune/session.h"

namespace po = boost::program_options;

namespace gputune::cli {

namespace {

constexpr int kInterrupted = 130;
constexpr int kSomeVariantsFailed = 1;

struct Parsed {
  po::variables_map vm;
  bool help = false;
};

Parsed parse(const std::vector<std::string>& args, const po::options_description& options,
             const po::positional_options_description& positional) {
  Parsed parsed;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), parsed.vm);
  parsed.help = parsed.vm.count("help") > 0;
  if (!parsed.help) po::notify(parsed.vm);
  return parsed;
}

// "m=4096,n=2*m" is two assignments; a comma inside an expression ("n=max(a, b)") is not a
// separator, since what follows it is not "name=".
std::vector<std::string> split_assignments(const std::string& text) {
  static const std::regex kNextAssignment(R"(^\s*[A-Za-z_]\w*\s*=[^=])");
  std::vector<std::string> out(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',' && std::regex_search(text.substr(i + 1), kNextAssignment)) {
      out.emplace_back();
    } else {
      out.back() += text[i];
    }
  }
  return out;
}

ProblemOverrides parse_overrides(const po::variables_map& vm) {
  ProblemOverrides overrides;
  if (!vm.count("set")) return overrides;
  std::vector<std::string> items;
  for (const auto& given : vm["set"].as<std::vector<std::string>>()) {
    for (auto& item : split_assignments(given)) items.push_back(std::move(item));
  }
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorCode::kUsage, "--set " + item + ": expected name=value, e.g. --set n=4096");
    }
    overrides.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return overrides;
}

std::string required_spec(const po::variables_map& vm) {
  if (!vm.count("spec"))
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  return vm["spec"].as<std::string>();
}

void add_spec_options(po::options_description& options) {
  options.add_options()("spec", po::value<std::string>(),
                        "spec file, or the name of a shipped spec")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override problem values: --set n=4096, --set m=4096,n=2048 (repeatable)")(
      "db", po::value<std::string>()->default_value("gputune.db"), "database file")(
      "json", "write JSON to stdout instead of a table")("help,h", "show this help");
}

}  // namespace

int search_command(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune search SPEC [options]\n\n"
      "Compiles each variant the strategy proposes with NVRTC, checks its outputs against the\n"
      "baseline's, times it (CUDA events, L2 flushed, adaptive sample count) and stores every\n"
      "attempt in the database. A rerun measures nothing already measured; Ctrl-C stops after\n"
      "the variant in flight and the next run resumes.\n\noptions");
  add_spec_options(options);
  std::string strategies;
  for (const auto& name : strategy_list()) strategies += (strategies.empty() ? "" : ", ") + name;
  options.add_options()(
      "strategy", po::value<std::string>(),
      ("search strategy: " + strategies + " (default: the spec's, else brute_force)").c_str())(
      "budget", po::value<std::string>(),
      "evaluations (100), time (90s, 10m, 2h), or none to lift the spec's; stored "
      "evaluations count too")("seed", po::value<uint64_t>(),
                               "seed of the random strategies (default: the spec's)")(
      "force", "measure again variants the database already has")(
      "no-prior", "do not learn from the kernel's other workloads in the database")(
      "replay", po::value<std::string>(),
      "answer from a recording (gputune export; it names its spec) or from a database (give "
      "the SPEC) instead of the GPU; no GPU needed; the results go to --db only when it is "
      "given")("top", po::value<size_t>()->default_value(10), "variants shown in the table")(
      "device", po::value<int>()->default_value(0), "GPU ordinal")(
      "devices", po::value<std::string>(),
      "GPUs to measure on, one worker process each: 'all' or a list such as 0,1 (identical "
      "GPUs; they share one workload)")("jobs,j", po::value<size_t>()->default_value(0),
                                        "compiler processes (default: one per hardware thread)")(
      "cache-dir", po::value<std::string>(),
      "module cache (default: $XDG_CACHE_HOME/gputune/modules or ~/.cache/gputune/modules)")(
      "no-cache", "compile every variant, neither reading nor writing the module cache")(
      "timeout-floor", po::value<double>()->default_value(2.0),
      "seconds a variant may always run beyond its timing budget before it is killed")(
      "timeout-factor", po::value<double>()->default_value(50.0),
      "... or this many times the best kernel time so far (per launch), if longer")(
      "warm-cache", "time without flushing L2 between samples")(
      "max-seconds", po::value<double>()->default_value(1.0),
      "longest time spent timing one variant")(
      "fast",
      "quick, noisier timing for broad sweeps: 5 ms warm-up, 5 to 100 samples, at "
      "most 0.1 s per variant (an explicit --max-seconds wins)")("quiet,q",
                                                                 "no progress on stderr")(
      "compile-only", "only compile every variant (no GPU needed) and report failures")(
      "arch", po::value<std::string>()->default_value("sm_90"),
      "target architecture with --compile-only");
  po::positional_options_description positional;
  positional.add("spec", 1);
  Parsed parsed = parse(args, options, positional);
  if (parsed.help) {
    std::cout << options << "\nexamples:\n"
              << "  gputune search spaces/transpose.yaml\n"
              << "  gputune search transpose --set n=4096 --strategy random --budget 50\n"
              << "  gputune search transpose --compile-only --arch sm_90\n";
    return 0;
  }
  const auto& vm = parsed.vm;
  SearchRequest request;
  if (vm.count("strategy")) request.strategy = vm["strategy"].as<std::string>();
  if (vm.count("budget")) request.budget = vm["budget"].as<std::string>();
  if (vm.count("seed")) request.seed = vm["seed"].as<uint64_t>();
  request.force = vm.count("force");
  request.use_prior = !vm.count("no-prior");
  if (vm.count("replay")) request.replay = vm["replay"].as<std::string>();
  if (vm.count("spec")) request.spec = vm["spec"].as<std::string>();
  request.overrides = parse_overrides(vm);
  if (!vm["db"].defaulted()) request.db = vm["db"].as<std::string>();
  request.device = vm["device"].as<int>();
  if (vm.count("devices")) request.devices = vm["devices"].as<std::string>();
  request.jobs = vm["jobs"].as<size_t>();
  if (vm.count("cache-dir")) request.cache_dir = vm["cache-dir"].as<std::string>();
  request.use_cache = !vm.count("no-cache");
  request.timeout_floor_s = vm["timeout-floor"].as<double>();
  request.timeout_factor = vm["timeout-factor"].as<double>();
  request.warm_cache = vm.count("warm-cache");
  if (!vm["max-seconds"].defaulted()) request.max_seconds = vm["max-seconds"].as<double>();
  request.fast = vm.count("fast");
  request.compile_only = vm.count("compile-only");
  request.arch = vm["arch"].as<std::string>();

  const bool json = vm.count("json");
  SearchOutcome outcome;
  {
    ProgressPrinter printer(!vm.count("quiet"));
    outcome = search(request, std::ref(printer), &install_interrupt_handler());
  }
  if (outcome.compile_only) {
    std::cout << compile_only_text(outcome, json);
    return outcome.compile_failures() ? kSomeVariantsFailed : 0;
  }
  size_t top = vm["top"].as<size_t>();
  std::cout << (json ? outcome.report.json(top) + "\n" : outcome.report.table(top));
  return outcome.interrupted ? kInterrupted : 0;
}

int best_command(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune best SPEC [options]\n\n"
      "The fastest correct variant stored for SPEC at its problem values (after --set), per\n"
      "GPU. Runs nothing.\n\noptions");
  add_spec_options(options);
  po::positional_options_description positional;
  positional.add("spec", 1);
  Parsed parsed = parse(args, options, positional);
  if (parsed.help) {
    std::cout << options;
    return 0;
  }
  const auto& vm = parsed.vm;
  Spec spec = open_spec(required_spec(vm), parse_overrides(vm));
  std::string db = vm["db"].as<std::string>();
  nlohmann::json out = nlohmann::json::array();
  size_t found = 0;
  for (const WorkloadInfo& w : stored_workloads(db, spec)) {
    if (!w.best) continue;
    ++found;
    const Measurement& best = *w.best;
    const double speedup = w.speedup();
    if (vm.count("json")) {
      out.push_back({{"device", w.device.name},
                     {"config", nlohmann::json::parse(best.config)},
                     {"median_ms", best.median_ms()},
                     {"speedup", speedup},
                     {"measured_variants", w.ok}});
    } else {
      std::printf("%s: %s  %.4f ms", w.device.name.c_str(), config_text(best.config).c_str(),
                  best.median_ms());
      if (speedup > 0) std::printf("  %.2fx the baseline", speedup);
      std::printf("  (%lld variants measured)\n", static_cast<long long>(w.ok));
    }
  }
  if (vm.count("json")) std::cout << out.dump(2) << "\n";
  if (!found) {
    std::cerr << "gputune best: nothing measured for " << workload_title(spec) << " in " << db
              << "\n";
    return EX_DATAERR;
  }
  return 0;
}

int show_command(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune show [options]\n\n"
      "Every workload in the database (spec, problem values, GPU) with its best variant.\n\n"
      "options");
  options.add_options()("db", po::value<std::string>()->default_value("gputune.db"),
                        "database file")("json", "write JSON to stdout instead of a table")(
      "help,h", "show this help");
  Parsed parsed = parse(args, options, {});
  if (parsed.help) {
    std::cout << options;
    return 0;
  }
  const auto& vm = parsed.vm;
  std::string db = vm["db"].as<std::string>();
  nlohmann::json out = nlohmann::json::array();
  for (const WorkloadInfo& w : stored_workloads(db)) {
    nlohmann::json row = {{"workload", w.id},
                          {"spec", w.spec_path},
                          {"kernel", w.kernel_name},
                          {"problem", nlohmann::json::parse(w.problem_json)},
                          {"device", w.device.name},
                          {"attempts", w.attempts},
                          {"ok", w.ok}};
    double speedup = 0;
    if (w.best) {
      row["best"] = {{"config", nlohmann::json::parse(w.best->config)},
                     {"median_ms", w.best->median_ms()}};
      if (w.baseline && w.baseline->status == Status::kOk) {
        speedup = w.speedup();
        row["best"]["speedup"] = speedup;
      }
    }
    if (vm.count("json")) {
      out.push_back(row);
      continue;
    }
    std::printf("#%lld %s %s on %s: %lld attempts, %lld ok\n", static_cast<long long>(w.id),
                w.spec_path.c_str(), config_text(w.problem_json).c_str(), w.device.name.c_str(),
                static_cast<long long>(w.attempts), static_cast<long long>(w.ok));
    if (w.best) {
      std::printf("    best %.4f ms", w.best->median_ms());
      if (speedup > 0) std::printf(" (%.2fx the baseline)", speedup);
      std::printf(": %s\n", config_text(w.best->config).c_str());
    }
  }
  if (vm.count("json")) std::cout << out.dump(2) << "\n";
  return 0;
}

int export_command(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune export [options]\n\n"
      "Writes every workload of a database (or one) as a text recording: metadata lines, then\n"
      "one CSV row per variant with its status, samples, compile time and resources. A\n"
      "recording replays with `gputune search --replay FILE`, on any machine.\n\noptions");
  options.add_options()("db", po::value<std::string>()->default_value("gputune.db"),
                        "database file")("out", po::value<std::string>()->default_value("."),
                                         "folder the recordings go to")(
      "workload", po::value<int64_t>(), "only this workload (see gputune show)")(
      "commit", po::value<std::string>()->default_value(""), "gputune commit to record")(
      "help,h", "show this help");
  Parsed parsed = parse(args, options, {});
  if (parsed.help) {
    std::cout << options;
    return 0;
  }
  const auto& vm = parsed.vm;
  std::string db = vm["db"].as<std::string>();
  std::optional<int64_t> workload;
  if (vm.count("workload")) workload = vm["workload"].as<int64_t>();
  const auto written =
      export_recordings(db, vm["out"].as<std::string>(), workload, vm["commit"].as<std::string>());
  for (const auto& [path, w] : written) {
    std::cout << path << ": " << w.attempts << " attempts, " << w.ok << " ok\n";
  }
  if (written.empty()) {
    std::cerr << "gputune export: no workload to export in " << db << "\n";
    return EX_DATAERR;
  }
  return 0;
}

int list_command(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune list [options]\n\n"
      "The specs shipped with gputune, with the size of their spaces. Set GPUTUNE_SPACES to\n"
      "add a folder.\n\noptions");
  options.add_options()("json", "write JSON")("help,h", "show this help");
  Parsed parsed = parse(args, options, {});
  if (parsed.help) {
    std::cout << options;
    return 0;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const ShippedSpec& spec : shipped_spec_list()) {
    nlohmann::json row = {{"name", spec.name}, {"path", spec.path}};
    if (spec.error.empty()) {
      row["description"] = spec.description;
      row["variants"] = spec.variants;
      row["product"] = spec.product;
    } else {
      row["error"] = spec.error;
    }
    out.push_back(row);
  }
  if (parsed.vm.count("json")) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& row : out) {
    if (row.contains("error")) {
      std::printf("%-16s (broken: %s)\n", row["name"].get<std::string>().c_str(),
                  row["error"].get<std::string>().c_str());
      continue;
    }
    std::printf("%-16s %6llu variants  %s\n", row["name"].get<std::string>().c_str(),
                static_cast<unsigned long long>(row["variants"].get<uint64_t>()),
                row["description"].get<std::string>().c_str());
  }
  if (out.empty()) std::cerr << "gputune list: no shipped specs found (GPUTUNE_SPACES?)\n";
  return 0;
}

}  // namespace gputune::cli
