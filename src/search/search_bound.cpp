#include "search/search_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gputune {
namespace {

// Above this share a resource is taken as saturated: the pipeline keeps some slack (a compile
// finishing just after a worker frees up, the last variants draining).
constexpr double kSaturated = 0.8;
// A GPU worker whose occupied time is at least this much kernels is bound by the GPU, else by
// its own overhead around them.
constexpr double kKernelShare = 0.5;

std::string percent(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", 100 * share);
  return text;
}

std::string times(double factor) {
  char text[16];
  std::snprintf(text, sizeof text, "%.2gx", factor);
  return text;
}

std::string count(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

SearchBound search_bound(const SearchRecord& record) {
  SearchBound bound;
  const double gpus = static_cast<double>(std::max<int64_t>(record.gpus, 1));
  const double jobs = static_cast<double>(std::max<int64_t>(record.jobs, 1));
  const double measuring = record.measuring_s;
  if (std::isnan(measuring) || std::isnan(record.gpu_busy_s) || !(measuring > 0) ||
      record.evaluated == 0) {
    return bound;
  }
  bound.gpu_busy = std::clamp(record.gpu_busy_s / (gpus * measuring), 0.0, 1.0);
  bound.workers_occupied =
      std::clamp((record.check_s + record.time_s) / (gpus * measuring), bound.gpu_busy, 1.0);
  bound.compile_busy = std::clamp(record.compile_s / (jobs * measuring), 0.0, 1.0);
  // Twice the GPUs: the GPU workers' side doubles until the compilers saturate; twice the
  // CPUs: the compilers' side doubles until the GPU workers are always occupied.
  const auto gain = [](double busy) { return busy > 0 ? std::clamp(1 / busy, 1.0, 2.0) : 2.0; };
  bound.twice_the_gpus = gain(bound.compile_busy);
  bound.twice_the_cpus = gain(bound.workers_occupied);
  const std::string gpus_text = count(record.gpus > 0 ? record.gpus : 1, "GPU", "GPUs");
  const std::string jobs_text =
      count(record.jobs > 0 ? record.jobs : 1, "compiler process", "compiler processes");
  if (bound.workers_occupied >= kSaturated) {
    if (bound.gpu_busy >= kKernelShare * bound.workers_occupied) {
      bound.kind = "gpu";
      bound.text = "GPU-bound: " + gpus_text + " " + percent(bound.gpu_busy) +
                   " busy with the variants' kernels, " + jobs_text + " " +
                   percent(bound.compile_busy) + " busy; twice the GPUs would buy up to " +
                   times(bound.twice_the_gpus) +
                   (bound.twice_the_gpus < 1.9 ? " before the compilers bound" : "");
    } else {
      bound.kind = "host";
      bound.text = "host-bound: the GPU workers were " + percent(bound.workers_occupied) +
                   " occupied but the GPUs only " + percent(bound.gpu_busy) +
                   " busy with the variants' kernels: checks, L2 flushes, inputs and module "
                   "loads took the rest; twice the GPUs would buy up to " +
                   times(bound.twice_the_gpus) + ", fewer samples or checks more";
    }
  } else if (bound.compile_busy >= kSaturated) {
    bound.kind = "compile";
    bound.text = "compile-bound: " + jobs_text + " " + percent(bound.compile_busy) + " busy kept " +
                 gpus_text + " " + percent(bound.gpu_busy) +
                 " busy; another GPU would idle, twice the CPUs (or MPI ranks on other hosts) "
                 "would buy up to " +
                 times(bound.twice_the_cpus);
    bound.twice_the_gpus = 1;
  } else {
    bound.kind = "search";
    bound.text = "search-bound: neither the " + gpus_text + " (" + percent(bound.gpu_busy) +
                 " busy, workers " + percent(bound.workers_occupied) + " occupied) nor the " +
                 jobs_text + " (" + percent(bound.compile_busy) +
                 " busy) were saturated: the search process (strategy, dispatch, database) or "
                 "worker restarts kept them waiting; more of either would buy little";
    bound.twice_the_gpus = bound.twice_the_cpus = 1;
  }
  return bound;
}

}  // namespace gputune
