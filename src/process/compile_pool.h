#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compile/compile_service.h"
#include "compile/compiler.h"
#include "compile/module_cache.h"

namespace gputune {

struct CompilePoolStats {
  uint64_t compiled = 0;  // by a worker
  uint64_t cache_hits = 0;
  uint64_t crashes = 0;  // workers that died compiling (each replaced)
  double compile_s = 0;  // summed over workers
};

using CompilerFactory = std::function<std::unique_ptr<Compiler>()>;

// NVRTC serialises inside one process, so compilation runs in worker processes (fork()ed
// children on a socket), each with its own compiler. A worker that crashes is replaced and its
// job comes back as a failed compilation, never lost. The driver process stays free of CUDA.
class CompilePool : public Compiler, public CompileService {
 public:
  // workers == 0: one per usable CPU. cache may be null.
  explicit CompilePool(size_t workers, CompilerFactory factory = make_nvrtc_compiler,
                       std::shared_ptr<ModuleCache> cache = nullptr);
  ~CompilePool() override;
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  CompiledKernel compile(const CompileRequest& request) override;  // one job, waits for it
  size_t parallelism() const override;
  uint64_t submit(const CompileRequest& request) override;
  std::vector<std::pair<uint64_t, CompiledKernel>> poll(int timeout_ms) override;
  size_t pending() const override;
  void cancel() override;

  const CompilePoolStats& stats() const;
  std::vector<int> worker_pids() const;  // for tests

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The CPUs this process may run on (its affinity mask: a cpuset, or mpirun binding a rank to a
// core), the default number of compiler processes.
size_t usable_cpus();

}  // namespace gputune
