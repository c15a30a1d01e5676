#include "search/search_accounting.h"

#include <cmath>

namespace gputune {

void account_measurement(SearchRecord& record, const Measurement& m) {
  record.check_s += m.check_ms / 1e3;
  record.time_s += m.time_ms / 1e3;
  if (!std::isnan(record.gpu_busy_s)) record.gpu_busy_s += m.gpu_busy_ms / 1e3;
}

void begin_measuring(SearchRecord& record) {
  record.measuring_s = 0;
  record.gpu_busy_s = 0;
}

void account_compilation(SearchRecord& record, const CompiledKernel& kernel) {
  if (kernel.cached) {
    ++record.cache_hits;
  } else {
    record.compile_s += kernel.compile_ms / 1e3;
  }
}

}  // namespace gputune
