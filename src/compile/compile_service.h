#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "compile/compiler.h"

namespace gputune {

// Compilation that does not wait: submit() now, poll() for what has finished. The compiler
// processes of process/compile_pool.h, or any Compiler one request at a time
// (search/async_adapters.h).
class CompileService {
 public:
  virtual ~CompileService() = default;
  virtual size_t parallelism() const = 0;
  // The ticket comes back with the result.
  virtual uint64_t submit(const CompileRequest& request) = 0;
  // Finished jobs, waiting up to timeout_ms (< 0: until one finishes) while none has.
  // A compiler that throws (misuse, not a compile error) throws here.
  virtual std::vector<std::pair<uint64_t, CompiledKernel>> poll(int timeout_ms) = 0;
  virtual size_t pending() const = 0;  // submitted, not yet handed back
  // Forgets every job: queued ones never start, running ones' results are dropped.
  virtual void cancel() = 0;
};

}  // namespace gputune
