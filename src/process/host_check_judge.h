#pragma once
// The driver's half of a host check (gputune/host_check.h): the GPU worker sends each checked
// run's outputs, and the caller's function judges them in the caller's process.
#include "gputune/host_check.h"
#include "process/process_runner.h"
#include "space/problem.h"

namespace gputune {

// A judge for ProcessRunner that hands `check` the outputs, named and typed by the problem's
// output buffers, and the inputs, filled as the worker fills them (given data is shared, not
// copied) the first time they are needed. A variant the check rejects becomes a kWrongAnswer
// with its message; the check's time is added to check_ms. `problem` must outlive the judge.
OutputJudge make_host_check_judge(const Problem& problem, HostCheck check);

}  // namespace gputune
