#pragma once
#include <functional>
#include <memory>

#include "run/runner.h"

namespace gputune {

// Makes the Runner a worker process holds: make_gpu_runner in production, a stand-in in tests.
using RunnerFactory = std::function<std::unique_ptr<Runner>(int ordinal)>;

// A GPU worker process's life on socket `fd` (process/gpu_worker_wire.h): it says it is filling
// inputs, makes its runner for GPU `ordinal`, says hello with its device, then answers the
// driver's frames until the socket closes. After a variant's sticky error (or a profile that
// lost the context) it exits, as only a new process can go on. Returns the exit code.
int gpu_worker_main(int fd, int ordinal, const RunnerFactory& factory);

}  // namespace gputune
