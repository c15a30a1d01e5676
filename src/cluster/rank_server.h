#pragma once
#include <string>
#include <vector>

#include "compile/compile_service.h"
#include "run/async_runner.h"
#include "space/problem.h"

namespace gputune {

// A measuring rank: says hello to rank 0 on `fd` (its GPUs, `gpu.devices()`, with their UUIDs
// where they time live, so that rank 0 can tell when two ranks measure on one GPU), then
// compiles and measures the configs rank 0 sends, as many at once as `gpu` has idle GPUs, and
// sends each measurement back with its workers' restarts so far, until rank 0 says done or goes
// away. Returns an exit code.
int serve_rank(int fd, int rank, const Problem& problem, CompileService& compiles,
               AsyncRunner& gpu);

}  // namespace gputune
