#include "analysis/bottleneck.h"

#include <algorithm>
#include <cstdio>

namespace gputune {
namespace {

const char* const kAchieved = "sm__warps_active.avg.pct_of_peak_sustained_active";
const char* const kTheoretical = "sm__maximum_warps_per_active_cycle_pct";
const char* const kMaxWarps = "device__attribute_max_warps_per_multiprocessor";
const char* const kCcMajor = "device__attribute_compute_capability_major";
const char* const kCcMinor = "device__attribute_compute_capability_minor";
const char* const kGlobalLoads = "smsp__sass_inst_executed_op_global_ld.sum";
const char* const kGlobalStores = "smsp__sass_inst_executed_op_global_st.sum";
const char* const kInstructions = "smsp__inst_executed.sum";
const char* const kDram = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kDramBytesPerSecond = "dram__bytes.sum.per_second";
// ncu reports every device attribute with each launch; the range profiler none of these two.
const char* const kMemoryClockKhz = "device__attribute_memory_clock_rate";
const char* const kMemoryBusBits = "device__attribute_global_memory_bus_width";
const char* const kMemory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kL1 = "l1tex__throughput.avg.pct_of_peak_sustained_active";
const char* const kL2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";
const char* const kSharedLoads = "smsp__sass_inst_executed_op_shared_ld.sum";
const char* const kSharedStores = "smsp__sass_inst_executed_op_shared_st.sum";
const char* const kEligible = "smsp__warps_eligible.avg.per_cycle_active";
const char* const kIssue = "smsp__issue_active.avg.pct_of_peak_sustained_active";
const char* const kUniform = "smsp__sass_average_branch_targets_threads_uniform.pct";
const char* const kDivergent = "smsp__sass_branch_targets_threads_divergent.sum";
const char* const kDuration = "gpu__time_duration.sum";

const std::pair<const char*, const char*> kOccupancyLimits[] = {
    {"launch__occupancy_limit_registers", "registers"},
    {"launch__occupancy_limit_shared_mem", "shared memory"},
    {"launch__occupancy_limit_warps", "warps (block size)"},
    {"launch__occupancy_limit_blocks", "blocks per SM"},
    {"launch__occupancy_limit_barriers", "barriers"},
};

// Stall reasons every architecture since Volta reports (gmma, Hopper's only, is left out so
// that the metric list works elsewhere).
const char* const kStallReasons[] = {"barrier",
                                     "branch_resolving",
                                     "dispatch_stall",
                                     "drain",
                                     "imc_miss",
                                     "lg_throttle",
                                     "long_scoreboard",
                                     "math_pipe_throttle",
                                     "membar",
                                     "mio_throttle",
                                     "misc",
                                     "no_instruction",
                                     "not_selected",
                                     "selected",
                                     "short_scoreboard",
                                     "sleeping",
                                     "tex_throttle",
                                     "wait"};
// Waiting on the result of an earlier instruction.
const char* const kDependencyStalls[] = {"long_scoreboard", "short_scoreboard", "wait"};

const char* const kPipes[] = {"alu", "fma", "lsu", "adu", "cbu", "xu", "fp64", "uniform", "tex"};

std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}
std::string pipe_metric(const std::string& pipe) {
  return "sm__inst_executed_pipe_" + pipe + ".avg.pct_of_peak_sustained_active";
}

std::string format(const char* pattern, double a, double b = 0, double c = 0, double d = 0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, a, b, c, d);
  return buffer;
}

// The theoretical DRAM bandwidth in GB/s of a memory clock (kHz) and bus width (bits), double
// data rate: NVIDIA's own formula (CUDA samples, "How to Implement Performance Metrics in CUDA
// C/C++"). 2619000 kHz and 5120 bits give an H100's 3352 GB/s, the peak ncu's
// gpu__dram_throughput is a share of (its copy fixture: 3.021 TB/s at 90.1%).
double dram_peak_gbs(double clock_khz, double bus_bits) {
  return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9;
}

class Reader {
 public:
  Reader(const CounterValues& counters, std::vector<std::string>* missing)
      : counters_(counters), missing_(missing) {}
  double operator()(const std::string& name) const {
    const auto it = counters_.find(name);
    if (it != counters_.end()) return it->second;
    missing_->push_back(name);
    return 0;
  }
  bool has(const std::string& name) const { return counters_.count(name) > 0; }

 private:
  const CounterValues& counters_;
  std::vector<std::string>* missing_;
};

}  // namespace

const std::vector<std::string>& bottleneck_metrics() {
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> out = {kAchieved,     kTheoretical,  kMaxWarps,
                                    kCcMajor,      kCcMinor,      kGlobalLoads,
                                    kGlobalStores, kInstructions, kDram,
                                    kMemory,       kL1,           kL2,
                                    kConflicts,    kSharedLoads,  kSharedStores,
                                    kEligible,     kIssue,        kUniform,
                                    kDivergent,    kDuration,     kDramBytesPerSecond};
    for (const auto& [metric, name] : kOccupancyLimits) out.push_back(metric);
    for (const char* reason : kStallReasons) out.push_back(stall_metric(reason));
    for (const char* pipe : kPipes) out.push_back(pipe_metric(pipe));
    return out;
  }();
  return metrics;
}

std::vector<std::pair<std::string, std::string>> range_profiler_metrics() {
  const std::string sass = "smsp__sass_inst_executed_op_";
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& metric : bottleneck_metrics()) {
    if (metric.rfind("launch__", 0) == 0 || metric.rfind("device__attribute_", 0) == 0 ||
        metric == kTheoretical || metric == kUniform || metric == kDivergent) {
      continue;
    }
    if (metric.rfind(sass, 0) == 0) {
      out.emplace_back("smsp__inst_executed_op_" + metric.substr(sass.size()), metric);
    } else {
      out.emplace_back(metric, metric);
    }
  }
  return out;
}

// Global (DRAM) load latency in cycles, from published microbenchmarks: Jia et al., "Dissecting
// the NVIDIA Volta GPU architecture via microbenchmarking" (2018) and "... Turing T4 ..." (2019)
// for sm_70 and sm_75; Luo et al., "Benchmarking and dissecting the Nvidia Hopper GPU
// architecture" (2024) for sm_80, sm_89 and sm_90. Rounded: the formula needs a magnitude.
double memory_latency_cycles(int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  if (cc >= 100) return 600;
  if (cc >= 90) return 480;
  if (cc >= 89) return 470;
  if (cc >= 80) return 470;
  if (cc >= 75) return 430;
  if (cc >= 70) return 440;
  return 600;
}

std::string step_name(BottleneckStep step) {
  switch (step) {
    case BottleneckStep::kGlobalMemory:
      return "global memory";
    case BottleneckStep::kSharedMemory:
      return "shared memory";
    case BottleneckStep::kExecutionDependency:
      return "execution dependency";
    case BottleneckStep::kInstructions:
      return "instructions";
    case BottleneckStep::kLatency:
      return "latency";
  }
  return "";
}

BottleneckAnalysis classify_bottleneck(const CounterValues& counters, int cc_major, int cc_minor,
                                       double warps_per_sm, const BottleneckThresholds& limits) {
  BottleneckAnalysis a;
  Reader get(counters, &a.missing);

  // Step 1: global memory, a = (Nm / Ni) * T / W.
  if (cc_major == 0 && get.has(kCcMajor)) {
    cc_major = static_cast<int>(get(kCcMajor));
    cc_minor = static_cast<int>(get(kCcMinor));
  }
  a.latency_cycles = memory_latency_cycles(cc_major, cc_minor);
  a.warps_per_sm = warps_per_sm > 0 ? warps_per_sm : get(kMaxWarps);
  a.achieved_occupancy = get(kAchieved) / 100;
  a.theoretical_occupancy = get(kTheoretical) / 100;
  const double instructions = get(kInstructions);
  const double global = get(kGlobalLoads) + get(kGlobalStores);
  a.memory_per_instruction = instructions > 0 ? global / instructions : 0;
  if (a.warps_per_sm > 0) {
    a.required_occupancy =
        std::min(1.0, a.memory_per_instruction * a.latency_cycles / a.warps_per_sm);
  }
  double fewest_blocks = 0;
  for (const auto& [metric, name] : kOccupancyLimits) {
    if (!get.has(metric)) continue;
    const double blocks = get(metric);
    if (a.occupancy_limiter.empty() || blocks < fewest_blocks) {
      fewest_blocks = blocks;
      a.occupancy_limiter = name;
    }
  }
  a.dram_pct = get(kDram);
  a.memory_pct = get(kMemory);
  a.l1_pct = get(kL1);
  a.l2_pct = get(kL2);
  // Against the copy the search measured: what this GPU achieves in practice (about 90% of the
  // theoretical peak on an H100), so a streaming kernel close to it is at the limit even where
  // the theoretical 80% is out of reach.
  const bool dram_bytes_known =
      get.has(kDramBytesPerSecond) || (get.has(kMemoryClockKhz) && get.has(kMemoryBusBits));
  if (get.has(kDramBytesPerSecond)) {
    a.dram_gbs = get(kDramBytesPerSecond) / 1e9;
  } else if (dram_bytes_known) {
    a.dram_gbs = a.dram_pct / 100 * dram_peak_gbs(get(kMemoryClockKhz), get(kMemoryBusBits));
  }
  if (limits.copy_bandwidth_gbs > 0) {
    a.copy_gbs = limits.copy_bandwidth_gbs;
    if (!dram_bytes_known) a.missing.push_back(kDramBytesPerSecond);
    a.copy_pct = 100 * a.dram_gbs / a.copy_gbs;
    a.at_copy_limit = dram_bytes_known && a.copy_pct >= limits.copy_bound_pct;
  }
  a.latency_bound = a.achieved_occupancy < a.required_occupancy;
  a.bandwidth_bound = a.at_copy_limit || a.dram_pct >= limits.dram_bound_pct;

  // Step 2: shared memory.
  a.shared_requests = get(kSharedLoads) + get(kSharedStores);
  a.conflicts_per_request = a.shared_requests > 0 ? get(kConflicts) / a.shared_requests : 0;

  // Step 3: execution dependency.
  a.eligible_warps = get(kEligible);
  double stalls = 0, dependency = 0;
  for (const char* reason : kStallReasons) {
    const double value = get(stall_metric(reason));
    stalls += value;
    a.stall_shares.emplace_back(reason, value);
  }
  for (const char* reason : kDependencyStalls) dependency += get(stall_metric(reason));
  for (auto& share : a.stall_shares) share.second = stalls > 0 ? share.second / stalls : 0;
  std::stable_sort(a.stall_shares.begin(), a.stall_shares.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  a.dependency_share = stalls > 0 ? dependency / stalls : 0;

  // Step 4: instructions.
  a.issue_active_pct = get(kIssue);
  for (const char* pipe : kPipes) a.pipe_utilisation.emplace_back(pipe, get(pipe_metric(pipe)));
  std::stable_sort(a.pipe_utilisation.begin(), a.pipe_utilisation.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  if (get.has(kUniform)) a.branch_uniform_pct = get(kUniform);
  a.divergent_branches = get(kDivergent);
  a.duration_ns = get(kDuration);

  const double busiest_pipe = a.pipe_utilisation.empty() ? 0 : a.pipe_utilisation[0].second;
  if (a.at_copy_limit) {
    // More parallelism or wider accesses cannot move bytes faster than a copy does: what is
    // left is moving fewer of them (reuse through shared memory, L2 locality).
    a.step = BottleneckStep::kGlobalMemory;
    a.verdict = format(
        "memory bound at the bandwidth limit: DRAM at %.0f GB/s, %.1f%% of the measured copy "
        "bandwidth (%.0f GB/s; >= %.0f%%)",
        a.dram_gbs, a.copy_pct, a.copy_gbs, limits.copy_bound_pct);
    a.remedies = {Remedy::kSharedStaging, Remedy::kBlockOrder};
  } else if (a.bandwidth_bound) {
    a.step = BottleneckStep::kGlobalMemory;
    a.verdict = format("memory bound: DRAM at %.1f%% of peak (>= %.0f%%)", a.dram_pct,
                       limits.dram_bound_pct);
    a.remedies = {Remedy::kSharedStaging, Remedy::kVectorWidth, Remedy::kBlockOrder};
  } else if (a.latency_bound) {
    a.step = BottleneckStep::kGlobalMemory;
    a.verdict = format(
        "global-memory latency not hidden: achieved occupancy %.1f%% below the %.1f%% required",
        a.achieved_occupancy * 100, a.required_occupancy * 100);
    a.remedies = {Remedy::kThreadParallelism, Remedy::kInstructionParallelism,
                  Remedy::kSharedStaging, Remedy::kVectorWidth};
    // Registers limit the warps in flight: capping them (and smaller thread merges) comes
    // first, before the knobs that raise parallelism by using more registers.
    if (a.occupancy_limiter == "registers") {
      a.remedies.insert(a.remedies.begin(), Remedy::kRegisterCap);
    }
  } else if (a.conflicts_per_request >= limits.conflicts_per_request) {
    a.step = BottleneckStep::kSharedMemory;
    a.verdict = format("shared-memory bank conflicts: %.2f per request (>= %.1f)",
                       a.conflicts_per_request, limits.conflicts_per_request);
    a.remedies = {Remedy::kPadding, Remedy::kRegisterTiling};
  } else if (a.eligible_warps < limits.eligible_warps &&
             a.dependency_share >= limits.dependency_share) {
    a.step = BottleneckStep::kExecutionDependency;
    a.verdict = format(
        "execution dependency: %.2f eligible warps per cycle, %.0f%% of stalls wait on results",
        a.eligible_warps, a.dependency_share * 100);
    a.remedies = {Remedy::kThreadParallelism, Remedy::kInstructionParallelism};
  } else if (a.issue_active_pct >= limits.issue_bound_pct ||
             busiest_pipe >= limits.issue_bound_pct) {
    a.step = BottleneckStep::kInstructions;
    a.verdict = "instruction bound: issue slots " + format("%.1f%% busy", a.issue_active_pct) +
                ", busiest pipe " + a.pipe_utilisation[0].first +
                format(" at %.1f%%", busiest_pipe);
    a.remedies = {Remedy::kCheaperInstructions, Remedy::kFewerBranches};
    if (a.pipe_utilisation[0].first == "lsu") {
      a.remedies.insert(a.remedies.begin(), Remedy::kRegisterTiling);
    }
  } else {
    a.step = BottleneckStep::kLatency;
    const std::string top = a.stall_shares.empty() ? "" : a.stall_shares[0].first;
    a.verdict =
        "no step of the method fires (latency bound): largest stall " + top +
        format(" (%.0f%%), issue slots %.1f%% busy",
               a.stall_shares.empty() ? 0 : a.stall_shares[0].second * 100, a.issue_active_pct);
    a.remedies = {Remedy::kThreadParallelism, Remedy::kInstructionParallelism,
                  Remedy::kSharedStaging};
  }
  std::sort(a.missing.begin(), a.missing.end());
  a.missing.erase(std::unique(a.missing.begin(), a.missing.end()), a.missing.end());
  return a;
}

}  // namespace gputune
