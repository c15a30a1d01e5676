#pragma once
// Hardware counters of kernel launches in this process, from CUPTI's range profiler. libcupti
// is opened at run time, like libcuda: gputune starts, compiles and replays without it.
#include <cuda.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gputune {

// A counter to collect, and the name it is reported under: the same, or Nsight Compute's name
// for the same count where ncu takes it another way (SASS patching instead of a counter).
struct RangeMetric {
  std::string collect;
  std::string report;
};

struct RangeCounters {
  bool ok = false;
  std::string message;        // without counters: why
  bool unavailable = false;   // no launch can be profiled here: no libcupti, no permission, ...
  bool context_lost = false;  // a launch left a sticky error: the process cannot go on
  std::vector<std::map<std::string, double>> launches;  // by report name, one per launch
  std::string source;                                   // "cupti 13.0"
};

// One GPU's range profiler. Each launch is a range of its own, replayed once per pass that its
// metrics need, with the memory it writes restored between passes (kernel replay), so the
// launches see the inputs they would see unprofiled.
class RangeProfiler {
 public:
  // Never throws: unavailable_reason() says what is missing.
  RangeProfiler(int ordinal, CUcontext context);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // "" when it can profile; otherwise why not and what to do.
  const std::string& unavailable_reason() const;
  // Profiles the launches that `launch` queues and waits for; `launch` returns the first
  // failure. Metrics the chip lacks are left out of the values. Never throws for CUPTI; a
  // CudaError from `launch` propagates after the profiler is disabled.
  RangeCounters profile(const std::vector<RangeMetric>& metrics,
                        const std::function<CUresult()>& launch);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What `chip` ("GH100") makes of counters to collect, found by the host half of CUPTI alone
// (no GPU needed): those it does not know, and the replay passes the rest take.
struct RangeMetricsCheck {
  std::string message;  // "" when libcupti answered
  std::vector<std::string> unknown;
  size_t passes = 0;
};
RangeMetricsCheck check_range_metrics(const std::string& chip,
                                      const std::vector<std::string>& collect);

}  // namespace gputune
