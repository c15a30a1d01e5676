#pragma once
#include <string>
#include <vector>

#include "process/compile_pool.h"
#include "process/process_runner.h"
#include "space/problem.h"

namespace gputune {

// A measuring rank: says hello to rank 0 on `fd`, then compiles and measures the configs rank 0
// sends, as many at once as `gpu` has idle GPUs, and sends each measurement back, until rank 0
// says done or goes away. Returns an exit code.
// `slots`: the GPUs `gpu` measures on at once; `gpu_uuids`: theirs (none in replay), so that
// rank 0 can tell when two ranks measure on one GPU.
int serve_rank(int fd, int rank, const Problem& problem, CompileService& compiles, AsyncRunner& gpu,
               size_t slots, std::vector<std::string> gpu_uuids);

}  // namespace gputune
