#include "search/search_record.h"

namespace gputune {

void account_measurement(SearchRecord& record, const Measurement& m) {
  record.check_s += m.check_ms / 1e3;
  record.time_s += m.time_ms / 1e3;
}

void account_compilation(SearchRecord& record, const CompiledKernel& kernel) {
  if (kernel.cached) {
    ++record.cache_hits;
  } else {
    record.compile_s += kernel.compile_ms / 1e3;
  }
}

}  // namespace gputune
