#include "gputune/search_options.h"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <limits>

#include "gputune/error.h"

namespace gputune {
namespace {

using Setter = std::function<void(SearchRequest&, const std::string&)>;

struct Row {
  SearchOption option;
  Setter set;  // given the text, already known to be "" for a flag
};

[[noreturn]] void refuse(const std::string& name, const std::string& text,
                         const std::string& expected) {
  throw Error(ErrorCode::kUsage, "--" + name + " " + text + ": expected " + expected);
}

uint64_t whole_number(const std::string& name, const std::string& text, uint64_t largest) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || value > largest) {
    refuse(name, text, "a whole number from 0 to " + std::to_string(largest));
  }
  return value;
}

double number(const std::string& name, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE) refuse(name, text, "a number");
  return value;
}

Setter text_of(std::string SearchRequest::*field) {
  return [field](SearchRequest& r, const std::string& text) { r.*field = text; };
}
Setter flag(bool SearchRequest::*field, bool value = true) {
  return [field, value](SearchRequest& r, const std::string&) { r.*field = value; };
}
Setter number_of(double SearchRequest::*field, const char* name) {
  return
      [field, name](SearchRequest& r, const std::string& text) { r.*field = number(name, text); };
}

std::string strategy_help() {
  std::string names;
  for (const auto& name : strategy_list()) names += (names.empty() ? "" : ", ") + name;
  return "search strategy: " + names + " (default: the spec's, else brute_force)";
}

const std::vector<Row>& rows() {
  static const std::vector<Row> kRows = {
      {{"strategy", "NAME", "", strategy_help()}, text_of(&SearchRequest::strategy)},
      {{"profiler", "NAME", "auto",
        "where --strategy bottleneck's counters come from: cupti (CUPTI's range profiler in the "
        "GPU worker, tenths of a second a variant), ncu (Nsight Compute, a program of its own, "
        "seconds a variant) or auto (CUPTI, else ncu)"},
       text_of(&SearchRequest::profiler)},
      {{"budget", "N|TIME", "",
        "evaluations (100), time (90s, 10m, 2h), or none to lift the spec's; stored "
        "evaluations count too"},
       text_of(&SearchRequest::budget)},
      {{"seed", "N", "", "seed of the random strategies (default: the spec's)"},
       [](SearchRequest& r, const std::string& text) {
         r.seed = whole_number("seed", text, std::numeric_limits<uint64_t>::max());
       }},
      {{"force", "", "", "measure again variants the database already has"},
       flag(&SearchRequest::force)},
      {{"no-prior", "", "", "do not learn from the kernel's other workloads in the database"},
       flag(&SearchRequest::use_prior, false)},
      {{"no-prune", "", "",
        "learn from them, but measure every config: leave none out because the cost model fit "
        "on them predicts it far from the best"},
       flag(&SearchRequest::prune, false)},
      {{"prune-above", "X", "1.5",
        "with prior data, leave out configs the cost model predicts (2 standard deviations "
        "optimistic) to be more than this many times slower than the best; its held-out check "
        "may raise it (docs/pruning.md)"},
       number_of(&SearchRequest::prune_above, "prune-above")},
      {{"replay", "FILE", "",
        "answer from a recording (gputune export; it names its spec) or from a database (give "
        "the SPEC) instead of the GPU; no GPU needed; the results go to --db only when it is "
        "given"},
       text_of(&SearchRequest::replay)},
      {{"device", "N", "0", "GPU ordinal"},
       [](SearchRequest& r, const std::string& text) {
         r.device = static_cast<int>(whole_number("device", text, std::numeric_limits<int>::max()));
       }},
      {{"devices", "LIST", "",
        "GPUs to measure on, one worker process each: 'all', a list such as 0,1 (identical "
        "GPUs; they share one workload), or with --mpi 'local': this rank's share of its host's "
        "GPUs, so that ranks on one host each get GPUs of their own"},
       text_of(&SearchRequest::devices)},
      {{"jobs", "N", "",
        "compiler processes (default: one per CPU this process may use; with --mpi, shared among "
        "the ranks on a host)"},
       [](SearchRequest& r, const std::string& text) { r.jobs = parse_jobs(text); }},
      {{"cache-dir", "DIR", "",
        "module cache (default: $XDG_CACHE_HOME/gputune/modules or ~/.cache/gputune/modules)"},
       text_of(&SearchRequest::cache_dir)},
      {{"no-cache", "", "",
        "compile every variant, neither reading nor writing the module cache, and with NVRTC's "
        "own cache (CUDA 12.9+, in the driver's compute cache) off"},
       flag(&SearchRequest::use_cache, false)},
      {{"timeout-floor", "SECONDS", "2",
        "seconds a variant may always run beyond its timing budget before it is killed"},
       number_of(&SearchRequest::timeout_floor_s, "timeout-floor")},
      {{"timeout-factor", "X", "50",
        "... or this many times the best kernel time so far (per launch), if longer"},
       number_of(&SearchRequest::timeout_factor, "timeout-factor")},
      {{"warm-cache", "", "", "time without flushing L2 between samples"},
       flag(&SearchRequest::warm_cache)},
      {{"max-seconds", "SECONDS", "1",
        "time spent timing one variant; one too slow for 10 samples in it may take up to 3 times "
        "as long to reach them"},
       [](SearchRequest& r, const std::string& text) {
         r.max_seconds = number("max-seconds", text);
       }},
      {{"fast", "", "",
        "quick, noisier timing for broad sweeps: 5 ms warm-up, 5 to 100 samples, at most 0.1 s "
        "per variant (an explicit --max-seconds wins)"},
       flag(&SearchRequest::fast)},
      {{"sampling", "race|full", "race",
        "race: stop timing a variant once its samples show it is more than 5% slower than the "
        "best so far (stored flagged 'cut short'), then re-measure the 3 fastest in 3 "
        "interleaved rounds to pick the winner; full: time every variant in full"},
       text_of(&SearchRequest::sampling)},
      {{"check", "none|baseline", "",
        "change the spec's check (any spec, T1 files included): none times the variants "
        "unchecked; baseline compares each output with the baseline's, instead of the spec's "
        "references or reference kernel. The report says so, and the results are stored apart "
        "from the spec's own"},
       [](SearchRequest& r, const std::string& text) { r.check.check = text; }},
      {{"atol", "X", "",
        "absolute tolerance of the check (|got - expected| <= atol + rtol |expected|), instead "
        "of the spec's"},
       [](SearchRequest& r, const std::string& text) { r.check.atol = number("atol", text); }},
      {{"rtol", "X", "", "relative tolerance of the check, instead of the spec's"},
       [](SearchRequest& r, const std::string& text) { r.check.rtol = number("rtol", text); }},
      {{"strict", "", "",
        "stop (exit 65) where gputune would warn about the spec's arguments: a type that differs "
        "from the kernel's parameter, or an argument the baseline used otherwise than declared "
        "(an input it changed, an output it left untouched)"},
       flag(&SearchRequest::strict)},
      {{"compile-only", "", "",
        "only compile the variants (no GPU needed) and report failures: every valid one in the "
        "space's order, or the first N with --budget N (no --strategy: strategies choose from "
        "measurements); a space of more than 100000 needs --budget N or none"},
       flag(&SearchRequest::compile_only)},
      {{"arch", "sm_XY", "sm_90", "target architecture with --compile-only"},
       text_of(&SearchRequest::arch)},
      {{"mpi", "", "",
        "one rank of mpirun --enable-recovery --bind-to none -n N gputune search SPEC --mpi: rank "
        "0 runs the strategy and the database, every rank measures on its --devices "
        "(docs/cluster.md)"},
       flag(&SearchRequest::mpi)},
      {{"replay-real-time", "", "",
        "with --replay, take as long as the recording says compiling and measuring took"},
       flag(&SearchRequest::replay_real_time)},
      {{"replay-unverified", "", "",
        "with --replay, accept a recording without spec_hash or measurement_hash lines, though "
        "nothing then shows it was measured with this spec (its configs are still checked)"},
       flag(&SearchRequest::replay_unverified)},
      {{"shard", "K/N", "",
        "K/N: measure only the configs whose index is K mod N (0 <= K < N; brute force), for "
        "a Slurm job array; give each shard its own --db and merge them (gputune merge OUT.db "
        "shard-*.db)"},
       text_of(&SearchRequest::shard)},
  };
  return kRows;
}

}  // namespace

const std::vector<SearchOption>& search_options() {
  static const std::vector<SearchOption> kOptions = [] {
    std::vector<SearchOption> out;
    for (const Row& row : rows()) out.push_back(row.option);
    return out;
  }();
  return kOptions;
}

void set_search_option(SearchRequest* request, const std::string& name, const std::string& text) {
  std::string names;
  for (const Row& row : rows()) {
    if (row.option.name != name) {
      names += (names.empty() ? "" : ", ") + row.option.name;
      continue;
    }
    if (row.option.value.empty() && !text.empty()) {
      throw Error(ErrorCode::kUsage,
                  "--" + name + " is a flag and takes no value; got '" + text + "'");
    }
    row.set(*request, text);
    return;
  }
  throw Error(ErrorCode::kUsage, "no search option '" + name + "'; expected one of: " + names);
}

size_t parse_jobs(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 4 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  const size_t jobs = digits ? std::stoul(text) : 0;
  if (jobs == 0 || jobs > kMaxJobs) {
    throw Error(ErrorCode::kUsage,
                "--jobs " + text + ": expected a number of compiler processes from 1 to " +
                    std::to_string(kMaxJobs) + " (leave it out for one per CPU)");
  }
  return jobs;
}

}  // namespace gputune
