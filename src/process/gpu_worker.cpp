#include "process/gpu_worker.h"

#include <unistd.h>

#include <deque>
#include <utility>
#include <vector>

#include "gputune/error.h"
#include "process/gpu_worker_wire.h"
#include "process/ipc.h"

namespace gputune {

using namespace gpu_wire;

int gpu_worker_main(int fd, int ordinal, const RunnerFactory& factory) {
  std::unique_ptr<Runner> runner;
  try {
    if (!send_phase(fd, SearchPhase::kFillingInputs)) return 0;
    runner = factory(ordinal);
    wire::Writer hello;
    wire::put(hello, runner->device());
    if (!ipc::write_frame(fd, kHello, hello.data())) return 0;
  } catch (const Error& e) {
    return send_fatal(fd, e);
  } catch (const std::exception& e) {
    return send_fatal(fd, Error(ErrorCode::kInternal, e.what()));
  }
  // Frames read ahead of their turn: the driver sends the next candidate while this one runs,
  // so that the runner can load its module during this one's checked run.
  std::deque<WorkerFrame> ahead;
  runner->set_lookahead([fd, &ahead]() -> const Candidate* {
    if (ahead.empty() && !ipc::readable({fd}, 0).empty()) {
      WorkerFrame next;
      if (read_worker_frame(fd, &next)) ahead.push_back(std::move(next));
    }
    return !ahead.empty() && ahead.front().type == kRun ? &ahead.front().candidate : nullptr;
  });
  for (;;) {
    try {
      WorkerFrame frame;
      if (!ahead.empty()) {
        frame = std::move(ahead.front());
        ahead.pop_front();
      } else if (!read_worker_frame(fd, &frame)) {
        return 0;  // the driver closed the socket
      }
      wire::Writer reply;
      if (frame.type == kBandwidth) {
        reply.f64(runner->measure_copy_bandwidth());
        if (!ipc::write_frame(fd, kBandwidthResult, reply.data())) return 0;
        continue;
      }
      if (frame.type == kProfile) {
        const RangeCounters counters = runner->profile(frame.candidate, frame.metrics);
        put_counters(reply, counters);
        if (!ipc::write_frame(fd, kProfileResult, reply.data())) return 0;
        if (counters.context_lost) _exit(0);  // as after a variant's sticky error
        continue;
      }
      const uint32_t type = frame.type;
      const Candidate& candidate = frame.candidate;
      Measurement m;
      if (type == kReference) {
        m = runner->set_reference(candidate);
      } else {
        std::vector<Measurement> results = runner->run({candidate});
        if (results.empty()) throw Error(ErrorCode::kInternal, "the runner measured nothing");
        m = std::move(results[0]);
      }
      if (!send_outputs(fd, runner->take_checked_outputs())) return 0;
      wire::put(reply, m);
      if (!ipc::write_frame(fd, kResult, reply.data())) return 0;
      // The context may be poisoned for the rest of this process (the 580 driver refuses to
      // recover): a new process is the only sure way on, and skipping teardown is quickest.
      if (m.status == Status::kRuntimeError) _exit(0);
    } catch (const Error& e) {
      return send_fatal(fd, e);
    } catch (const std::exception& e) {
      return send_fatal(fd, Error(ErrorCode::kInternal, e.what()));
    }
  }
}

}  // namespace gputune
