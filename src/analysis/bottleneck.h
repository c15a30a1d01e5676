#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/remedy.h"

namespace gputune {

// Hardware counters of one launch: metric name -> value in base units (analysis/ncu_csv.h).
using CounterValues = std::map<std::string, double>;

// The metrics the classifier reads; what `gputune analyze` asks the profiler for.
const std::vector<std::string>& bottleneck_metrics();

// The same metrics as CUPTI's range profiler collects them, as (collected, reported) pairs:
// ncu counts instructions by operation through SASS patching (smsp__sass_*), the range
// profiler takes the hardware's count of the same executed warp instructions. ncu's launch__
// and device__attribute_ values and the theoretical occupancy are not counters: the profiling
// process adds them itself (run/launch_counters.h). Branch targets exist only through SASS
// patching, so they are left out (the report shows them as missing).
std::vector<std::pair<std::string, std::string>> range_profiler_metrics();

// Global-memory latency in cycles that the required occupancy assumes, by compute capability
// (docs/bottleneck.md gives the sources); 600, the middle of the method's 400-800, when unknown.
double memory_latency_cycles(int cc_major, int cc_minor);

// The four steps of the bottleneck method, in order; kLatency when none of them fires.
enum class BottleneckStep {
  kGlobalMemory,
  kSharedMemory,
  kExecutionDependency,
  kInstructions,
  kLatency
};
std::string step_name(BottleneckStep step);

// Thresholds of the verdict (docs/bottleneck.md explains each), and the practical DRAM limit
// they are judged against where the search measured one.
struct BottleneckThresholds {
  double dram_bound_pct = 80;  // DRAM throughput that counts as memory bound, % of peak
  // The device's copy bandwidth the search measured (GB/s, bytes read plus written, as
  // Runner::measure_copy_bandwidth): what a plain copy achieves, the practical limit. 0 when
  // unknown: then only dram_bound_pct, against the theoretical peak, judges.
  double copy_bandwidth_gbs = 0;
  double copy_bound_pct = 80;          // DRAM throughput, % of the copy bandwidth: at the limit
  double conflicts_per_request = 1.0;  // shared-memory bank conflicts per request
  double eligible_warps = 1.0;         // eligible warps per scheduler per cycle, below: few
  double dependency_share = 0.5;       // share of stalls waiting on a result
  double issue_bound_pct = 70;         // issue slots (or one pipe) busy: close to the limit
};

struct BottleneckAnalysis {
  // Step 1: global memory. Occupancies are fractions of the SM's warps.
  double achieved_occupancy = 0, theoretical_occupancy = 0, required_occupancy = 0;
  std::string occupancy_limiter;      // "registers", "shared memory", "warps", "blocks", "barriers"
  double memory_per_instruction = 0;  // Nm / Ni: global memory instructions per instruction
  double latency_cycles = 0;          // T
  double warps_per_sm = 0;            // W
  double dram_pct = 0, memory_pct = 0, l1_pct = 0, l2_pct = 0;  // of peak
  // DRAM bytes per second (dram__bytes.sum.per_second, else dram_pct of the peak the device's
  // memory clock and bus width give); 0 when neither is in the counters.
  double dram_gbs = 0;
  double copy_gbs = 0;  // the measured copy bandwidth judged against; 0 when unknown
  double copy_pct = 0;  // dram_gbs as a share of copy_gbs, in %; 0 when either is unknown
  // bandwidth_bound: DRAM at dram_bound_pct of peak or more, or at the copy limit.
  bool latency_bound = false, bandwidth_bound = false, at_copy_limit = false;
  // Step 2: shared memory.
  double shared_requests = 0, conflicts_per_request = 0;
  // Step 3: execution dependency.
  double eligible_warps = 0;    // per scheduler per cycle
  double dependency_share = 0;  // short/long scoreboard and fixed-latency waits, of all stalls
  std::vector<std::pair<std::string, double>> stall_shares;  // largest first, sums to 1
  // Step 4: instructions.
  double issue_active_pct = 0;
  std::vector<std::pair<std::string, double>> pipe_utilisation;  // % of peak, largest first
  double branch_uniform_pct = 100, divergent_branches = 0;
  double duration_ns = 0;

  BottleneckStep step = BottleneckStep::kLatency;
  std::string verdict;               // one sentence, with the numbers that decided it
  std::vector<Remedy> remedies;      // what addresses it, most direct first
  std::vector<std::string> missing;  // metrics the counters lacked (their steps read 0)
};

// `cc_major`/`cc_minor` and `warps_per_sm` come from the counters' device attributes when they
// are 0 here. With `thresholds.copy_bandwidth_gbs`, DRAM throughput at copy_bound_pct of it
// or more is memory bound at the bandwidth limit, whatever the occupancy.
BottleneckAnalysis classify_bottleneck(const CounterValues& counters, int cc_major = 0,
                                       int cc_minor = 0, double warps_per_sm = 0,
                                       const BottleneckThresholds& thresholds = {});

}  // namespace gputune
