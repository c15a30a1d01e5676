// `gputune analyze --all | --top N | --configs FILE`: many variants, one ncu run per batch.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/bottleneck.h"
#include "analysis/counter_source.h"
#include "compile/compiler_log.h"
#include "core/files.h"
#include "core/text.h"
#include "gputune/analysis.h"
#include "gputune/error.h"
#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "profile/analysis_outcome.h"
#include "profile/config_assignments.h"
#include "profile/variant_counters.h"
#include "search/matching_workloads.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "store/store.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Item {
  uint64_t index = 0;
  std::string config;  // the space's JSON
  size_t slot = 0;     // position in the outcome's variants
};

struct ManifestLine {
  std::string config;
  bool launched = false;
  std::string message;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string base_name(const std::string& entry) { return entry.substr(0, entry.find('<')); }

std::string first_entry(const Variant& variant) {
  return base_name(variant.kernel_name_expressions.at(variant.launches.at(0).kernel));
}

// The launches of `variant` that the batch's kernel filter lets through, each a row of ncu's.
size_t filtered_launches(const Variant& variant, const std::set<std::string>& entries) {
  size_t count = 0;
  for (const Launch& launch : variant.launches) {
    count += entries.count(base_name(variant.kernel_name_expressions.at(launch.kernel)));
  }
  return count;
}

std::vector<ManifestLine> read_manifest(const std::string& path) {
  std::vector<ManifestLine> lines;
  std::ifstream in(path);
  for (std::string text; std::getline(in, text);) {
    if (trim(text).empty()) continue;
    try {
      const auto json = nlohmann::json::parse(text);
      lines.push_back({json.at("config").get<std::string>(), json.at("launched").get<bool>(),
                       json.at("message").get<std::string>()});
    } catch (const nlohmann::json::exception&) {
      break;  // a line cut short by a crash: the variant did not finish
    }
  }
  return lines;
}

// The variants whose counters the database holds, for --unprofiled (else none).
std::set<uint64_t> profiled_before(const Store& store, const WorkloadSummary* workload,
                                   const AnalyzeManyRequest& request) {
  std::set<uint64_t> indices;
  if (!request.unprofiled || workload == nullptr) return indices;
  for (const auto& entry : store.all_counters(workload->id)) indices.insert(entry.first);
  return indices;
}

std::vector<Item> measured_items(const Store& store, const Problem& problem,
                                 const WorkloadSummary* workload, const AnalyzeManyRequest& request,
                                 const std::string& db, const std::string& spec_path,
                                 const std::set<uint64_t>& skip, std::vector<double>* median_ms,
                                 size_t* skipped) {
  if (workload == nullptr) {
    throw Error(ErrorCode::kUsage, std::string(request.all ? "--all" : "--top") + ": " + db +
                                       " has no measured variant of " + spec_path +
                                       " at these problem values; run gputune search first "
                                       "(e.g. --strategy brute_force --fast), or give --configs");
  }
  std::vector<Measurement> ok;
  for (const Measurement& m : store.measured(workload->id)) {
    if (m.status == Status::kOk && !m.cut_short && std::isfinite(m.median_ms())) ok.push_back(m);
  }
  std::stable_sort(ok.begin(), ok.end(), [](const Measurement& a, const Measurement& b) {
    return a.median_ms() < b.median_ms();
  });
  std::vector<Item> items;
  std::set<uint64_t> seen;
  for (const Measurement& m : ok) {
    if (!request.all && items.size() >= request.top) break;
    if (!seen.insert(m.config_index).second) continue;
    if (skip.count(m.config_index)) {
      ++*skipped;
      continue;
    }
    items.push_back({m.config_index, problem.space().json(m.config_index), items.size()});
    median_ms->push_back(m.median_ms());
  }
  return items;
}

std::vector<Item> file_items(const Store& store, const Problem& problem,
                             const WorkloadSummary* workload, const std::string& path,
                             const std::set<uint64_t>& skip, std::vector<double>* median_ms,
                             size_t* skipped) {
  std::ifstream in(path);
  if (!in) {
    throw Error(ErrorCode::kUsage, "--configs " + path +
                                       ": cannot read it; expected a file with one "
                                       "NAME=VALUE,... per line");
  }
  std::map<uint64_t, double> measured;
  if (workload != nullptr) {
    for (const Measurement& m : store.measured(workload->id)) {
      if (m.status == Status::kOk) measured[m.config_index] = m.median_ms();
    }
  }
  std::vector<Item> items;
  std::set<uint64_t> seen;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    uint64_t index = 0;
    try {
      index = config_index_of(problem, line);
    } catch (const Error& e) {
      throw Error(ErrorCode::kUsage, path + ":" + std::to_string(number) + ": " + e.what());
    }
    if (!seen.insert(index).second) continue;
    if (skip.count(index)) {
      ++*skipped;
      continue;
    }
    items.push_back({index, problem.space().json(index), items.size()});
    const auto found = measured.find(index);
    median_ms->push_back(found == measured.end() ? 0 : found->second);
  }
  return items;
}

std::string device_arch(const WorkloadSummary* workload, const std::vector<DeviceInfo>& gpus,
                        int device) {
  if (workload != nullptr) return workload->key.device.arch();
  if (device < 0 || static_cast<size_t>(device) >= gpus.size()) {
    throw Error(ErrorCode::kUsage, "--device " + std::to_string(device) + ": there are " +
                                       std::to_string(gpus.size()) +
                                       " GPUs; expected an ordinal below that");
  }
  return gpus[device].arch();
}

class BatchProfiler {
 public:
  BatchProfiler(const AnalyzeManyRequest& request, const Problem& problem, std::string spec_path,
                Store& store, const WorkloadSummary* workload, AnalyzeManyOutcome* outcome)
      : request_(request),
        problem_(problem),
        spec_path_(std::move(spec_path)),
        store_(store),
        workload_(workload),
        outcome_(*outcome),
        source_(make_ncu_counter_source(request.base.ncu)),
        self_(request.base.self.empty() ? gputune_program() : request.base.self) {
    // Made by mkdtemp, private to the user: a predictable name (it was the pid) could be made
    // first by anyone, as a link to somewhere else.
    folder_ = make_private_temp_directory("gputune-analyze");
  }
  ~BatchProfiler() {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }

  // Why no variant can be profiled, or "".
  std::string unavailable() const {
    if (self_.empty()) {
      return "the gputune program, which ncu runs to launch the variants, is not on PATH; put "
             "the installed gputune's folder on PATH";
    }
    return source_->unavailable_reason();
  }

  void run(std::deque<Item> queue, const AnalyzeProgressCallback& progress,
           const std::atomic<bool>* stop) {
    const auto start = Clock::now();
    AnalyzeProgress p;
    p.total = queue.size();
    while (!queue.empty() && !(stop && *stop) && outcome_.unavailable.empty()) {
      std::vector<Item> batch;
      while (!queue.empty() && batch.size() < std::max<size_t>(1, request_.batch)) {
        batch.push_back(queue.front());
        queue.pop_front();
      }
      std::vector<Item> retry = run_batch(batch, stop);
      queue.insert(queue.begin(), retry.begin(), retry.end());
      p.done = outcome_.profiled + outcome_.failed;
      p.profiled = outcome_.profiled;
      p.failed = outcome_.failed;
      p.elapsed_s = seconds_since(start);
      if (progress) progress(p);
    }
    outcome_.profile_s = seconds_since(start);
    const std::string why =
        !outcome_.unavailable.empty() ? outcome_.unavailable : "interrupted before its turn";
    for (const Item& item : queue) outcome_.variants[item.slot].message = why;
    if (stop && *stop) outcome_.interrupted = true;
  }

 private:
  // Profiles one batch; returns the variants to try again in a fresh process.
  std::vector<Item> run_batch(const std::vector<Item>& batch, const std::atomic<bool>* stop) {
    ++outcome_.batches;
    std::set<std::string> entries;
    std::vector<Variant> variants;
    for (const Item& item : batch) {
      variants.push_back(problem_.variant(item.index));
      entries.insert(first_entry(variants.back()));
    }
    const std::string manifest = (folder_ / "manifest.jsonl").string();
    const std::string stop_file = (folder_ / "stop").string();
    std::error_code ignored;
    fs::remove(manifest, ignored);
    fs::remove(stop_file, ignored);

    ProfileTarget target;
    target.command =
        profile_launch_command(self_, spec_path_, request_.base.overrides, request_.base.device);
    target.command.insert(target.command.end(), {"--manifest", manifest, "--stop-file", stop_file});
    if (!request_.use_cache) {
      target.command.push_back("--no-cache");
    } else if (!request_.cache_dir.empty()) {
      target.command.insert(target.command.end(), {"--cache-dir", request_.cache_dir});
    }
    size_t launches = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      target.command.insert(target.command.end(), {"--config-json", batch[i].config});
      launches += filtered_launches(variants[i], entries);
    }
    std::string alternatives;
    for (const std::string& entry : entries)
      alternatives += (alternatives.empty() ? "" : "|") + entry;
    target.kernel = entries.size() == 1 ? alternatives : "(" + alternatives + ")";
    target.metrics = bottleneck_metrics();
    target.launch_count = std::max<size_t>(1, launches);
    target.profile_from_start = false;
    target.timeout_s = request_.base.timeout_s + batch.size() * request_.variant_timeout_s;
    target.stop = stop;
    target.stop_file = stop_file;
    const CounterResult result = source_->profile(target);
    if (result.unavailable) {
      outcome_.unavailable = result.message;
      return batch;
    }
    const std::vector<ManifestLine> lines = read_manifest(manifest);
    const std::vector<KernelCounters>& rows = result.launches;
    size_t row = 0, launched = 0;
    for (const ManifestLine& line : lines) launched += line.launched;
    const double cost_s = result.wall_s / std::max<size_t>(1, launched);

    std::vector<Item> retry, lost;
    size_t k = 0;
    for (; k < lines.size() && k < batch.size(); ++k) {
      const Item& item = batch[k];
      const ManifestLine& line = lines[k];
      if (line.config != item.config) {
        fail(item, "the launcher's manifest does not follow the batch (got " + line.config + ")");
        continue;
      }
      if (!line.launched) {
        fail(item, line.message);
        continue;
      }
      const size_t count = filtered_launches(variants[k], entries);
      if (row + count > rows.size()) {
        lost.push_back(item);
        continue;
      }
      store(item, rows[row], result.source, cost_s);
      row += count;
    }
    const bool clean_exit = !result.timed_out && result.signal == 0 && result.exit_status == 0;
    const bool culprit_marked = !lines.empty() && !lines.back().launched && result.exit_status == 3;
    const bool stopped = stop && *stop && clean_exit;
    bool progress_made = culprit_marked;
    if (k < batch.size() && !stopped) {
      if (!culprit_marked) {
        fail(batch[k], clean_exit ? "the launcher ended before launching it"
                                  : "the launch did not come back: " + result.message);
        ++k;
        progress_made = true;
      }
      retry.insert(retry.end(), batch.begin() + k, batch.end());
    } else if (k < batch.size()) {
      lost.insert(lost.end(), batch.begin() + k, batch.end());
    }
    for (const Item& item : lost) {
      const std::string why = "ncu reported " + std::to_string(rows.size()) + " launches of " +
                              std::to_string(target.launch_count) + " expected" +
                              (result.ok ? "" : ": " + result.message);
      if (stopped) {
        outcome_.variants[item.slot].message = "interrupted before its turn";
      } else if (progress_made) {
        retry.push_back(item);
      } else {
        fail(item, why);
      }
    }
    std::stable_sort(retry.begin(), retry.end(),
                     [](const Item& a, const Item& b) { return a.slot < b.slot; });
    if (stopped) {
      for (const Item& item : retry) outcome_.variants[item.slot].message = "interrupted";
      retry.clear();
    }
    return retry;
  }

  void fail(const Item& item, const std::string& message) {
    outcome_.variants[item.slot].message = message;
    ++outcome_.failed;
  }

  void store(const Item& item, const KernelCounters& counters, const std::string& source,
             double cost_s) {
    record_profile(problem_, item.index, counters, source, cost_s, store_, workload_,
                   &outcome_.variants[item.slot]);
    ++outcome_.profiled;
  }

  const AnalyzeManyRequest& request_;
  const Problem& problem_;
  std::string spec_path_;
  Store& store_;
  const WorkloadSummary* workload_;
  AnalyzeManyOutcome& outcome_;
  std::unique_ptr<CounterSource> source_;
  std::string self_;
  fs::path folder_;
};

// Compiles every item into the module cache in parallel, as a search does; returns those that
// compiled and marks the rest.
std::deque<Item> compile_items(const std::vector<Item>& items, const Problem& problem,
                               const AnalyzeManyRequest& request, const std::string& arch,
                               AnalyzeManyOutcome* outcome, const std::atomic<bool>* stop) {
  const auto start = Clock::now();
  std::shared_ptr<ModuleCache> cache;
  if (request.use_cache) {
    cache = std::make_shared<ModuleCache>(
        request.cache_dir.empty() ? ModuleCache::default_directory() : request.cache_dir);
  }
  CompilePool pool(request.jobs, make_nvrtc_compiler, cache);
  std::map<uint64_t, size_t> ticket_item;
  for (size_t i = 0; i < items.size(); ++i) {
    const Variant variant = problem.variant(items[i].index);
    ticket_item[pool.submit(compile_request(problem, variant, arch))] = i;
  }
  std::vector<bool> compiled(items.size(), false);
  while (pool.pending() > 0) {
    if (stop && *stop) {
      pool.cancel();
      outcome->interrupted = true;
      break;
    }
    for (const auto& [ticket, kernel] : pool.poll(500)) {
      const size_t i = ticket_item.at(ticket);
      if (kernel.ok) {
        compiled[i] = true;
      } else {
        outcome->variants[items[i].slot].message =
            "does not compile: " + first_error_line(kernel.log);
        ++outcome->compile_failed;
      }
    }
  }
  outcome->compile_s = seconds_since(start);
  outcome->compile_cached = pool.stats().cache_hits;
  std::deque<Item> ready;
  for (size_t i = 0; i < items.size(); ++i) {
    if (compiled[i]) {
      ready.push_back(items[i]);
    } else if (outcome->variants[items[i].slot].message.empty()) {
      outcome->variants[items[i].slot].message = "interrupted before it compiled";
    }
  }
  return ready;
}

}  // namespace

AnalyzeManyOutcome analyze_many(const AnalyzeManyRequest& request,
                                const AnalyzeProgressCallback& progress,
                                const std::atomic<bool>* stop) {
  const AnalyzeRequest& base = request.base;
  if (base.spec.empty()) {
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  }
  if (int(request.all) + int(request.top > 0) + int(!request.configs_file.empty()) != 1) {
    throw Error(ErrorCode::kUsage, "give one of --all, --top N (N > 0) and --configs FILE");
  }
  const std::string spec_path = resolve_spec(base.spec);
  Problem problem(load_spec(spec_path, base.overrides));
  const std::string db = base.db.value_or("gputune.db");
  std::unique_ptr<Store> store = open_sqlite_store(db);
  const auto workloads = workloads_measured_as(*store, problem.spec(), problem.problem_json());
  const std::vector<DeviceInfo> gpus = list_gpus();
  const WorkloadSummary* workload = workload_on(workloads, listed_gpu(gpus, base.device));

  AnalyzeManyOutcome outcome;
  outcome.warnings = problem.spec().warnings;
  const std::set<uint64_t> skip = profiled_before(*store, workload, request);
  const std::vector<Item> items =
      request.configs_file.empty()
          ? measured_items(*store, problem, workload, request, db, spec_path, skip,
                           &outcome.median_ms, &outcome.already_profiled)
          : file_items(*store, problem, workload, request.configs_file, skip, &outcome.median_ms,
                       &outcome.already_profiled);
  for (const Item& item : items) outcome.variants.emplace_back().config = item.config;
  if (items.empty()) return outcome;

  BatchProfiler profiler(request, problem, spec_path, *store, workload, &outcome);
  outcome.unavailable = profiler.unavailable();
  if (!outcome.unavailable.empty()) {
    for (AnalysisOutcome& v : outcome.variants) v.message = outcome.unavailable;
    return outcome;
  }
  std::deque<Item> ready = compile_items(items, problem, request,
                                         device_arch(workload, gpus, base.device), &outcome, stop);
  profiler.run(std::move(ready), progress, stop);
  return outcome;
}

}  // namespace gputune
