#include "search/compile_outcome.h"

namespace gputune {

Measurement compile_failure(const Variant& variant, const CompiledKernel& kernel) {
  Measurement m;
  m.config_index = variant.index;
  m.config = variant.config;
  m.status = Status::kCompileError;
  m.compile_ms = kernel.compile_ms;
  m.message = kernel.log;
  return m;
}

}  // namespace gputune
