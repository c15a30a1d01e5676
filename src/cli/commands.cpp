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
#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "process/process_runner.h"
#include "replay/replay.h"
#include "run/runner.h"
#include "search/report.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "store/store.h"
#include "strategy/strategy.h"

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

Overrides parse_overrides(const po::variables_map& vm) {
  Overrides overrides;
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

std::unique_ptr<CompilePool> make_compile_pool(const po::variables_map& vm) {
  std::shared_ptr<ModuleCache> cache;
  if (!vm.count("no-cache")) {
    cache = std::make_shared<ModuleCache>(vm.count("cache-dir") ? vm["cache-dir"].as<std::string>()
                                                                : ModuleCache::default_directory());
  }
  return std::make_unique<CompilePool>(vm["jobs"].as<size_t>(), make_nvrtc_compiler, cache);
}

// --devices all | 0,1,... | (absent) --device N
std::vector<int> device_ordinals(const po::variables_map& vm) {
  if (!vm.count("devices")) return {vm["device"].as<int>()};
  const std::string text = vm["devices"].as<std::string>();
  std::vector<int> ordinals;
  if (text == "all") {
    for (const DeviceInfo& gpu : list_gpus()) ordinals.push_back(gpu.ordinal);
    if (ordinals.empty()) {
      throw Error(ErrorCode::kNoGpu,
                  "--devices all: no GPU found. Measuring needs an NVIDIA GPU "
                  "and its driver; use --compile-only to check that the "
                  "variants compile without one.");
    }
    return ordinals;
  }
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
      throw Error(ErrorCode::kUsage,
                  "--devices " + text + ": expected 'all' or GPU ordinals such as 0,1");
    }
    const int ordinal = std::stoi(item);
    if (std::find(ordinals.begin(), ordinals.end(), ordinal) == ordinals.end()) {
      ordinals.push_back(ordinal);
    }
  }
  if (ordinals.empty()) throw Error(ErrorCode::kUsage, "--devices: no GPU given");
  return ordinals;
}

int compile_only(const Problem& problem, Compiler& compiler, const std::string& arch, bool json,
                 bool quiet) {
  std::vector<Measurement> results;
  {
    ProgressPrinter printer(!quiet);
    results = compile_all(problem, compiler, arch, std::ref(printer), &install_interrupt_handler());
  }
  size_t failed = 0;
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& m : results) {
    if (m.status == Status::kOk) continue;
    ++failed;
    if (json) {
      failures.push_back({{"index", m.config_index},
                          {"config", nlohmann::json::parse(m.config)},
                          {"log", m.message}});
    } else {
      std::cout << "compile error: " << config_text(m.config) << "\n" << m.message << "\n";
    }
  }
  if (json) {
    nlohmann::json out = {{"spec", problem.spec().path},
                          {"arch", arch},
                          {"compiled", results.size()},
                          {"failed", failed},
                          {"failures", failures}};
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << results.size() << " variants compiled for " << arch << ", " << failed
              << " failed\n";
  }
  return failed ? kSomeVariantsFailed : 0;
}

// Read-only, and only a file that exists: reading must not leave an empty database behind.
std::unique_ptr<Store> open_existing_store(const std::string& db) {
  if (!std::filesystem::exists(db)) {
    throw Error(ErrorCode::kIo, db + ": no such database (run gputune search first, or --db)");
  }
  return open_sqlite_store(db, true);
}

std::string required_spec(const po::variables_map& vm) {
  if (!vm.count("spec"))
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  return vm["spec"].as<std::string>();
}

int run_and_report(const Problem& problem, Runner& runner, Compiler& compiler, Store& store,
                   const SearchOptions& search, const po::variables_map& vm) {
  const auto& stop = install_interrupt_handler();
  SearchResult result;
  {
    ProgressPrinter printer(!vm.count("quiet"));
    result = run_search(problem, runner, compiler, store, search, std::ref(printer), &stop);
  }
  Report report =
      make_report(report_title(problem), result.device, result.copy_bandwidth_gbs, result.baseline,
                  store.measured(result.workload), metrics_of(problem));
  report.search = result.record;
  size_t top = vm["top"].as<size_t>();
  std::cout << (vm.count("json") ? format_json(report, top) + "\n" : format_table(report, top));
  return result.record.interrupted ? kInterrupted : 0;
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
  for (const auto& name : strategy_names()) strategies += (strategies.empty() ? "" : ", ") + name;
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
      "answer from a recording (gputune export) instead of the GPU; no GPU needed; the "
      "results go to --db only when it is given")("top", po::value<size_t>()->default_value(10),
                                                  "variants shown in the table")(
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
  bool json = vm.count("json"), quiet = vm.count("quiet");
  SearchOptions search;
  if (vm.count("strategy")) {
    search.strategy = vm["strategy"].as<std::string>();
    make_strategy(search.strategy, 0);  // an unknown name fails before the GPU is touched
  }
  if (vm.count("budget")) {
    int64_t evaluations = 0;
    double seconds = 0;
    std::string text = vm["budget"].as<std::string>();
    if (text != "none" && !parse_budget(text, &evaluations, &seconds)) {
      throw Error(ErrorCode::kUsage, "--budget " + text +
                                         ": expected a number of evaluations (100), a time "
                                         "(90s, 10m, 2h) or none");
    }
    search.budget_evaluations = evaluations;
    search.budget_seconds = seconds;
  }
  if (vm.count("seed")) search.seed = vm["seed"].as<uint64_t>();
  search.force = vm.count("force");

  search.use_prior = !vm.count("no-prior");
  if (vm.count("replay")) {
    if (vm.count("spec") || vm.count("set")) {
      throw Error(ErrorCode::kUsage,
                  "--replay takes the spec and problem values from the "
                  "recording: give no SPEC or --set");
    }
    Recording recording = load_recording(vm["replay"].as<std::string>());
    Problem problem = recording_problem(recording);
    auto runner = make_replay_runner(recording);
    auto compiler = make_replay_compiler();
    auto store = open_sqlite_store(vm["db"].defaulted() ? ":memory:" : vm["db"].as<std::string>());
    return run_and_report(problem, *runner, *compiler, *store, search, vm);
  }
  Spec spec = load_spec(resolve_spec(required_spec(vm)), parse_overrides(vm));
  Problem problem(std::move(spec));
  // Compilers and GPU workers are forked processes; this one never initialises CUDA.
  auto compiler = make_compile_pool(vm);
  if (vm.count("compile-only")) {
    return compile_only(problem, *compiler, vm["arch"].as<std::string>(), json, quiet);
  }

  TimingOptions timing;
  timing.flush_l2 = !vm.count("warm-cache");
  if (vm.count("fast")) {
    timing.warmup_ms = 5;
    timing.min_samples = 5;
    timing.max_samples = 100;
    timing.max_seconds = 0.1;
  }
  if (!vm["max-seconds"].defaulted() || !vm.count("fast")) {
    timing.max_seconds = vm["max-seconds"].as<double>();
  }
  WatchdogOptions watchdog;
  watchdog.floor_s = vm["timeout-floor"].as<double>();
  watchdog.factor = vm["timeout-factor"].as<double>();
  if (watchdog.floor_s <= 0 || watchdog.factor <= 0) {
    throw Error(ErrorCode::kUsage, "--timeout-floor and --timeout-factor must be positive");
  }
  auto runner = make_process_runner(problem, device_ordinals(vm), timing, *compiler, watchdog);
  auto store = open_sqlite_store(vm["db"].as<std::string>());
  return run_and_report(problem, *runner, *compiler, *store, search, vm);
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
  Spec spec = load_spec(resolve_spec(required_spec(vm)), parse_overrides(vm));
  Problem problem(spec);
  std::string db = vm["db"].as<std::string>();
  auto store = open_existing_store(db);
  nlohmann::json out = nlohmann::json::array();
  size_t found = 0;
  for (const auto& w : store->workloads(spec.spec_hash(), problem.problem_json())) {
    if (w.key.source_hash != spec.source_hash() || !w.best) continue;
    ++found;
    const Measurement& best = *w.best;
    double speedup = w.baseline && w.baseline->status == Status::kOk
                         ? w.baseline->median_ms() / best.median_ms()
                         : 0;
    if (vm.count("json")) {
      out.push_back({{"device", w.key.device.name},
                     {"config", nlohmann::json::parse(best.config)},
                     {"median_ms", best.median_ms()},
                     {"speedup", speedup},
                     {"measured_variants", w.ok}});
    } else {
      std::printf("%s: %s  %.4f ms", w.key.device.name.c_str(), config_text(best.config).c_str(),
                  best.median_ms());
      if (speedup > 0) std::printf("  %.2fx the baseline", speedup);
      std::printf("  (%lld variants measured)\n", static_cast<long long>(w.ok));
    }
  }
  if (vm.count("json")) std::cout << out.dump(2) << "\n";
  if (!found) {
    std::cerr << "gputune best: nothing measured for " << report_title(problem) << " in " << db
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
  auto store = open_existing_store(db);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : store->workloads()) {
    nlohmann::json row = {{"workload", w.id},
                          {"spec", w.key.spec_path},
                          {"kernel", w.key.kernel_name},
                          {"problem", nlohmann::json::parse(w.key.problem_json)},
                          {"device", w.key.device.name},
                          {"attempts", w.attempts},
                          {"ok", w.ok}};
    double speedup = 0;
    if (w.best) {
      row["best"] = {{"config", nlohmann::json::parse(w.best->config)},
                     {"median_ms", w.best->median_ms()}};
      if (w.baseline && w.baseline->status == Status::kOk) {
        speedup = w.baseline->median_ms() / w.best->median_ms();
        row["best"]["speedup"] = speedup;
      }
    }
    if (vm.count("json")) {
      out.push_back(row);
      continue;
    }
    std::printf("#%lld %s %s on %s: %lld attempts, %lld ok\n", static_cast<long long>(w.id),
                w.key.spec_path.c_str(), config_text(w.key.problem_json).c_str(),
                w.key.device.name.c_str(), static_cast<long long>(w.attempts),
                static_cast<long long>(w.ok));
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
  auto store = open_existing_store(db);
  std::filesystem::create_directories(vm["out"].as<std::string>());
  size_t written = 0;
  for (const auto& w : store->workloads()) {
    if (vm.count("workload") && w.id != vm["workload"].as<int64_t>()) continue;
    std::string path =
        (std::filesystem::path(vm["out"].as<std::string>()) / recording_file_name(w.key)).string();
    export_recording(*store, w.id, path, vm["commit"].as<std::string>());
    std::cout << path << ": " << w.attempts << " attempts, " << w.ok << " ok\n";
    ++written;
  }
  if (!written) {
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
  for (const auto& path : shipped_specs()) {
    std::string name = std::filesystem::path(path).stem().string();
    nlohmann::json row = {{"name", name}, {"path", path}};
    try {
      Problem problem(load_spec(path));
      row["description"] = problem.spec().description;
      row["variants"] = problem.space().count_valid();
      row["product"] = problem.space().size();
    } catch (const Error& e) {
      row["error"] = e.what();
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
