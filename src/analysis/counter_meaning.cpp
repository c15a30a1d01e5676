#include <cstring>

#include "gputune/analysis.h"

namespace gputune {
namespace {

struct CounterPattern {
  const char* prefix;  // of the metric's name
  const char* unit;    // ncu's base unit (analysis/ncu_csv.h converts to it)
  const char* step;
};

// First match wins, so longer prefixes come before the shorter ones they extend.
constexpr CounterPattern kPatterns[] = {
    {"sm__warps_active.", "%", "global memory"},
    {"sm__maximum_warps_per_active_cycle_pct", "%", "global memory"},
    {"device__attribute_max_warps_per_multiprocessor", "", "global memory"},
    {"device__attribute_compute_capability", "", "global memory"},
    {"launch__occupancy_limit_", "block", "global memory"},
    {"launch__registers_per_thread", "register/thread", "global memory"},
    {"launch__shared_mem_per_block", "byte/block", "global memory"},
    {"smsp__sass_inst_executed_op_global_", "inst", "global memory"},
    {"smsp__inst_executed.sum", "inst", "global memory"},
    {"gpu__dram_throughput.", "%", "global memory"},
    {"gpu__compute_memory_throughput.", "%", "global memory"},
    {"dram__bytes.sum.per_second", "byte/second", "global memory"},
    {"l1tex__throughput.", "%", "global memory"},
    {"lts__throughput.", "%", "global memory"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared", "", "shared memory"},
    {"smsp__sass_inst_executed_op_shared_", "inst", "shared memory"},
    {"smsp__warps_eligible.", "warp", "execution dependency"},
    {"smsp__average_warps_issue_stalled_", "inst", "execution dependency"},
    {"smsp__issue_active.", "%", "instructions"},
    {"sm__inst_executed_pipe_", "%", "instructions"},
    {"smsp__sass_average_branch_targets_threads_uniform", "%", "instructions"},
    {"smsp__sass_branch_targets_threads_divergent", "branches", "instructions"},
    {"gpu__time_duration", "ns", ""},
};

bool starts_with(const std::string& text, const char* prefix) {
  return text.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

CounterMeaning counter_meaning(const std::string& metric) {
  for (const CounterPattern& pattern : kPatterns) {
    if (starts_with(metric, pattern.prefix)) return {pattern.unit, pattern.step};
  }
  // Metrics outside the method's list: only ncu's naming says what they are.
  return {metric.find("pct") != std::string::npos ? "%" : "", ""};
}

}  // namespace gputune
