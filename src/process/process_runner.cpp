#include "process/process_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>
#include <utility>

#include "gputune/error.h"
#include "process/gpu_list.h"
#include "process/gpu_worker.h"
#include "process/gpu_worker_wire.h"
#include "process/host_check_judge.h"
#include "process/ipc.h"

namespace gputune {

namespace {

using Clock = std::chrono::steady_clock;
using namespace gpu_wire;

// Launches a variant may get beyond the timing budget: the checked run, warm-up, the fewest
// samples, and slack.
constexpr double kLaunchesBeyondBudget = 8;

// Jobs sent to a worker at once: the one it runs and the next, whose module it loads meanwhile.
constexpr size_t kJobsPerWorker = 2;

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

Measurement failure(const Candidate& c, Status status, const std::string& message) {
  Measurement m;
  m.config_index = c.variant.index;
  m.config = c.variant.config;
  m.status = status;
  m.message = message;
  m.compile_ms = c.kernel.compile_ms;
  m.registers = c.kernel.registers;
  m.shared_bytes = c.kernel.shared_bytes;
  m.spill_bytes = c.kernel.spill_bytes;
  return m;
}

}  // namespace

struct ProcessRunner::Impl {
  enum class State { kStarting, kReady, kReferencing, kIdle, kBusy, kDead };
  struct Job {
    uint64_t ticket = 0;
    Candidate candidate;
    int attempts = 0;  // earlier workers that died running it
  };
  struct Worker {
    int ordinal = 0;
    ipc::Child child;
    State state = State::kDead;
    Clock::time_point started, deadline;
    double limit_s = 0;
    // Sent to the worker, in order: the first runs (started, deadline and limit_s are its), the
    // rest wait in its socket so that it can load them ahead.
    std::deque<Job> jobs;
    // A write failed while it ran a job: it may have exited after that job's result (a sticky
    // error), which is still to be read, so nothing more is sent until then.
    bool write_closed = false;
    std::vector<std::vector<unsigned char>> outputs;  // of the result on its way (host check)
  };
  struct Finished {
    uint64_t ticket = 0;
    Measurement m;
    std::vector<std::vector<unsigned char>> outputs;
  };

  ~Impl() {
    // Closing every socket first lets the workers wind down together.
    for (auto& w : workers) {
      if (w.child.fd >= 0) close(w.child.fd);
      w.child.fd = -1;
    }
    for (auto& w : workers) ipc::end_child(&w.child, 5.0);
  }

  RunnerFactory factory;
  WatchdogOptions watchdog;
  PhaseListener on_phase;
  OutputJudge judge;
  std::vector<Worker> workers;
  std::vector<DeviceInfo> devices;
  std::optional<Candidate> baseline;
  double reference_check_s = 0;
  double best_ms = std::numeric_limits<double>::infinity();
  std::deque<Job> queue;
  std::vector<Finished> ready;
  uint64_t next_ticket = 1;
  WorkerStats stats;

  static Clock::time_point after(double seconds) {
    return Clock::now() +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  std::string name(const Worker& w) const {
    return "the GPU worker for device " + std::to_string(w.ordinal);
  }

  double limit() const {
    const double by_best =
        std::isfinite(best_ms) ? watchdog.factor * best_ms * kLaunchesBeyondBudget / 1e3 : 0;
    return watchdog.timing_s + 4 * reference_check_s + std::max(watchdog.floor_s, by_best);
  }

  void start(Worker* w) {
    const RunnerFactory* f = &factory;
    const int ordinal = w->ordinal;
    w->child = ipc::spawn([f, ordinal](int fd) { return gpu_worker_main(fd, ordinal, *f); });
    w->state = State::kStarting;
    w->write_closed = false;
    w->outputs.clear();
    w->started = Clock::now();
    w->deadline = after(watchdog.start_s);
  }

  // A worker's jobs from `first` on, which it never started, go back to the front of the
  // queue, in order.
  void requeue(Worker* w, size_t first) {
    while (w->jobs.size() > first) {
      queue.push_front(std::move(w->jobs.back()));
      w->jobs.pop_back();
    }
  }

  // After its running job's result: the jobs still sent to it were never started.
  void restart(Worker* w) {
    requeue(w, 0);
    ipc::kill_child(&w->child);
    ++stats.restarts;
    start(w);
  }

  void send(Worker* w, uint32_t type, const std::string& payload) {
    if (!ipc::write_frame(w->child.fd, type, payload)) {
      const int status = ipc::kill_child(&w->child);
      w->state = State::kDead;
      throw Error(ErrorCode::kCuda, name(*w) + " is gone (" + ipc::describe_exit(status) + ")");
    }
  }

  void heard_phase(const std::string& payload) {
    wire::Reader reader(payload);
    const auto phase = static_cast<SearchPhase>(reader.i64());
    if (on_phase) on_phase(phase);
  }

  // Waits for the next frame of a worker that is being set up, past its phase messages and
  // output pieces (kept in w->outputs); its failures are the search's.
  uint32_t await(Worker* w, std::string* payload) {
    for (;;) {
      const uint32_t type = await_frame(w, payload);
      if (type == kPhase) {
        heard_phase(*payload);
      } else if (type == kOutput) {
        receive_output(*payload, &w->outputs);
      } else {
        return type;
      }
    }
  }

  // A kOk result judged by the outputs that came with it; other results have none to judge.
  void judge_result(Measurement* m, std::vector<std::vector<unsigned char>> outputs) {
    if (!judge || m->status != Status::kOk) return;
    judge(m, std::move(outputs));
  }

  uint32_t await_frame(Worker* w, std::string* payload) {
    while (ipc::readable({w->child.fd}, 100).empty()) {
      if (Clock::now() >= w->deadline) {
        ipc::kill_child(&w->child);
        w->state = State::kDead;
        throw Error(ErrorCode::kCuda,
                    name(*w) + " did not answer within " + seconds_text(watchdog.start_s));
      }
    }
    uint32_t type = 0;
    if (!ipc::read_frame(w->child.fd, &type, payload)) {
      const int status = ipc::kill_child(&w->child);
      w->state = State::kDead;
      throw Error(ErrorCode::kCuda,
                  name(*w) + " died while starting (" + ipc::describe_exit(status) + ")");
    }
    if (type == kFatal) {
      wire::Reader reader(*payload);
      Error e = wire::get_error(reader);
      ipc::kill_child(&w->child);
      w->state = State::kDead;
      throw e;
    }
    return type;
  }

  void note(const Measurement& m) {
    if (m.status == Status::kOk && m.median_ms() > 0) best_ms = std::min(best_ms, m.median_ms());
  }

  void send_reference(Worker* w) {
    wire::Writer message;
    put_candidate(message, *baseline);
    send(w, kReference, message.data());
    w->state = State::kReferencing;
    w->deadline = after(watchdog.start_s);
  }

  // The running job's clock starts: when it is sent to an idle worker, or when the result of
  // the one before it arrives.
  void start_clock(Worker* w) {
    w->state = State::kBusy;
    w->started = Clock::now();
    w->limit_s = limit();
    w->deadline = after(w->limit_s);
  }

  // Idle workers get a job first; then each busy one gets its next, to load ahead.
  void dispatch() {
    for (size_t depth = 1; depth <= kJobsPerWorker; ++depth) {
      for (Worker& w : workers) {
        if (queue.empty()) return;
        if (w.state != State::kIdle && w.state != State::kBusy) continue;
        if (w.jobs.size() >= depth || w.write_closed) continue;
        wire::Writer message;
        put_candidate(message, queue.front().candidate);
        if (!ipc::write_frame(w.child.fd, kRun, message.data())) {
          if (w.state == State::kBusy) {
            w.write_closed = true;  // its result, or the end of its socket, comes next
          } else {
            died(&w);  // it exited after its last variant's sticky error; the next worker takes it
          }
          continue;
        }
        w.jobs.push_back(std::move(queue.front()));
        queue.pop_front();
        if (w.jobs.size() == 1) start_clock(&w);
      }
    }
  }

  void finish(Worker* w, Measurement m) {
    note(m);
    ready.push_back({w->jobs.front().ticket, std::move(m), std::exchange(w->outputs, {})});
    w->jobs.pop_front();
    if (w->jobs.empty()) {
      w->state = State::kIdle;
    } else {
      start_clock(w);
    }
  }

  // The worker's socket closed without a word.
  void died(Worker* w) {
    const int status = ipc::kill_child(&w->child);
    switch (w->state) {
      case State::kBusy: {
        ++stats.crashes;
        requeue(w, 1);
        Job job = std::move(w->jobs.front());
        w->jobs.clear();
        if (job.attempts == 0) {
          // Perhaps not the variant's doing (kill -9 from outside): once more on a new worker.
          ++job.attempts;
          queue.push_front(std::move(job));
        } else {
          ready.push_back({job.ticket,
                           failure(job.candidate, Status::kRuntimeError,
                                   "the GPU worker process died running this variant, twice (" +
                                       ipc::describe_exit(status) + ")"),
                           {}});
        }
        break;
      }
      case State::kIdle:
        break;  // after a sticky error the worker exits by design
      default:
        w->state = State::kDead;
        throw Error(ErrorCode::kCuda,
                    name(*w) + " died while starting (" + ipc::describe_exit(status) + ")");
    }
    ++stats.restarts;
    start(w);
  }

  void receive(Worker* w) {
    uint32_t type = 0;
    std::string payload;
    if (!ipc::read_frame(w->child.fd, &type, &payload)) return died(w);
    if (type == kPhase) return heard_phase(payload);
    if (type == kOutput) return receive_output(payload, &w->outputs);
    wire::Reader reader(payload);
    if (type == kFatal) {
      Error e = wire::get_error(reader);
      if (w->state != State::kBusy) {
        ipc::kill_child(&w->child);
        w->state = State::kDead;
        throw Error(e.code(), name(*w) + " could not start again: " + e.what());
      }
      Candidate candidate = std::move(w->jobs.front().candidate);
      finish(w, failure(candidate, Status::kRuntimeError, e.what()));
      restart(w);
      return;
    }
    switch (w->state) {
      case State::kStarting:
        if (type != kHello) break;
        if (baseline) {
          send_reference(w);
        } else {
          w->state = State::kReady;
        }
        return;
      case State::kReferencing:
        if (type != kResult) break;
        w->outputs.clear();  // the reference was judged when the search set it
        w->state = State::kIdle;
        return;
      case State::kBusy: {
        if (type != kResult) break;
        Measurement m;
        wire::get(reader, &m);
        const bool poisoned = m.status == Status::kRuntimeError;
        finish(w, std::move(m));
        if (poisoned) restart(w);
        return;
      }
      default:
        break;
    }
    throw Error(ErrorCode::kInternal, name(*w) + " sent an unexpected message");
  }

  void check_deadlines() {
    const auto now = Clock::now();
    for (Worker& w : workers) {
      if (w.state == State::kDead || w.state == State::kIdle || w.state == State::kReady) continue;
      if (now < w.deadline) continue;
      if (w.state != State::kBusy) {
        ipc::kill_child(&w.child);
        w.state = State::kDead;
        throw Error(ErrorCode::kCuda,
                    name(w) + " did not start again within " + seconds_text(watchdog.start_s));
      }
      ++stats.timeouts;
      const double ran = std::chrono::duration<double>(now - w.started).count();
      Candidate candidate = std::move(w.jobs.front().candidate);
      finish(&w, failure(candidate, Status::kTimeout,
                         "no result after " + seconds_text(ran) + " (the watchdog allowed " +
                             seconds_text(w.limit_s) +
                             "); its worker process was killed and replaced"));
      restart(&w);
    }
  }

  int wait_ms(int timeout_ms) const {
    double wait = timeout_ms < 0 ? 1e9 : timeout_ms;
    const auto now = Clock::now();
    for (const Worker& w : workers) {
      if (w.state == State::kBusy || w.state == State::kStarting ||
          w.state == State::kReferencing) {
        const double left = std::chrono::duration<double, std::milli>(w.deadline - now).count();
        wait = std::min(wait, std::max(0.0, left) + 1);
      }
    }
    return static_cast<int>(std::min(wait, 1e9));
  }

  void pump(int timeout_ms) {
    std::vector<int> fds;
    for (const Worker& w : workers) {
      if (w.state != State::kDead) fds.push_back(w.child.fd);
    }
    if (fds.empty()) return;
    for (int fd : ipc::readable(fds, wait_ms(timeout_ms))) {
      for (Worker& w : workers) {
        if (w.state != State::kDead && w.child.fd == fd) {
          receive(&w);
          break;
        }
      }
    }
    check_deadlines();
    dispatch();
  }
};

ProcessRunner::ProcessRunner(std::vector<int> ordinals, RunnerFactory factory,
                             WatchdogOptions watchdog, PhaseListener on_phase, OutputJudge judge)
    : impl_(std::make_unique<Impl>()) {
  if (ordinals.empty()) throw Error(ErrorCode::kUsage, "no GPU to run on");
  impl_->factory = std::move(factory);
  impl_->watchdog = watchdog;
  impl_->on_phase = std::move(on_phase);
  impl_->judge = std::move(judge);
  impl_->workers.resize(ordinals.size());
  for (size_t i = 0; i < ordinals.size(); ++i) {
    impl_->workers[i].ordinal = ordinals[i];
    impl_->start(&impl_->workers[i]);
  }
  for (auto& w : impl_->workers) {
    std::string payload;
    if (impl_->await(&w, &payload) != kHello) {
      throw Error(ErrorCode::kInternal, impl_->name(w) + " did not say hello");
    }
    wire::Reader reader(payload);
    DeviceInfo info;
    wire::get(reader, &info);
    w.state = Impl::State::kReady;
    if (!impl_->devices.empty() && info.key() != impl_->devices[0].key()) {
      throw Error(ErrorCode::kUsage,
                  "GPU " + std::to_string(info.ordinal) + " (" + info.key() +
                      ") differs from GPU " + std::to_string(impl_->devices[0].ordinal) + " (" +
                      impl_->devices[0].key() +
                      "); one search takes identical GPUs, tune each kind in its own run");
    }
    impl_->devices.push_back(info);
  }
}

ProcessRunner::~ProcessRunner() = default;

const DeviceInfo& ProcessRunner::device() const { return impl_->devices.front(); }
std::vector<DeviceInfo> ProcessRunner::devices() const { return impl_->devices; }

Measurement ProcessRunner::set_reference(const Candidate& baseline) {
  Impl& p = *impl_;
  for (const auto& w : p.workers) {
    if (w.state != Impl::State::kReady && w.state != Impl::State::kIdle) {
      throw Error(ErrorCode::kUsage, "set_reference() while variants run");
    }
  }
  p.baseline = baseline;
  for (auto& w : p.workers) p.send_reference(&w);
  std::optional<Measurement> first;
  for (auto& w : p.workers) {
    std::string payload;
    if (p.await(&w, &payload) != kResult) {
      throw Error(ErrorCode::kInternal, p.name(w) + " did not answer the reference");
    }
    wire::Reader reader(payload);
    Measurement m;
    wire::get(reader, &m);
    w.state = Impl::State::kIdle;
    std::vector<std::vector<unsigned char>> outputs = std::exchange(w.outputs, {});
    if (!first) {
      p.judge_result(&m, std::move(outputs));  // the baseline is judged like any variant
      p.note(m);
      p.reference_check_s = m.check_ms / 1e3;
      first = std::move(m);
    } else {
      p.note(m);
    }
  }
  return *first;
}

double ProcessRunner::measure_copy_bandwidth() {
  Impl& p = *impl_;
  Impl::Worker& w = p.workers.front();
  if (w.state != Impl::State::kReady && w.state != Impl::State::kIdle) {
    throw Error(ErrorCode::kUsage, "measure_copy_bandwidth() while variants run");
  }
  const Impl::State state = w.state;
  p.send(&w, kBandwidth, "");
  w.deadline = Impl::after(p.watchdog.start_s);
  std::string payload;
  if (p.await(&w, &payload) != kBandwidthResult) {
    throw Error(ErrorCode::kInternal, p.name(w) + " did not answer the bandwidth request");
  }
  w.state = state;
  wire::Reader reader(payload);
  return reader.f64();
}

RangeCounters ProcessRunner::profile(const Candidate& candidate,
                                     const std::vector<RangeMetric>& metrics, double timeout_s) {
  Impl& p = *impl_;
  Impl::Worker* w = nullptr;
  for (auto& worker : p.workers) {
    if ((worker.state == Impl::State::kIdle || worker.state == Impl::State::kReady) &&
        worker.jobs.empty()) {
      w = &worker;
      break;
    }
  }
  RangeCounters out;
  if (w == nullptr) {
    out.message = "no GPU worker is idle to profile on";
    return out;
  }
  wire::Writer message;
  put_candidate(message, candidate);
  put_metrics(message, metrics);
  const auto started = Clock::now();
  const Impl::State state = w->state;
  try {
    p.send(w, kProfile, message.data());
    w->deadline = Impl::after(timeout_s);
    std::string payload;
    if (p.await(w, &payload) != kProfileResult) {
      throw Error(ErrorCode::kInternal, p.name(*w) + " did not answer the profile request");
    }
    wire::Reader reader(payload);
    out = get_counters(reader);
    w->state = state;
    if (out.context_lost) p.restart(w);  // it exits after saying so: a new one takes over
    return out;
  } catch (const Error& e) {
    // Like a variant's crash or hang, this costs the profile, not the search: a new worker.
    const double ran = std::chrono::duration<double>(Clock::now() - started).count();
    p.restart(w);  // it has no jobs to requeue: only an idle worker is asked
    out = RangeCounters{};
    out.message = ran >= timeout_s ? "the profile took longer than " + seconds_text(timeout_s) +
                                         "; its worker process was killed and replaced"
                                   : std::string("the profile ended its worker process (") +
                                         e.what() + "); it was replaced";
    return out;
  }
}

std::vector<Measurement> ProcessRunner::run(const std::vector<Candidate>& batch) {
  std::vector<uint64_t> tickets;
  for (const Candidate& c : batch) tickets.push_back(submit(c));
  std::vector<std::optional<Measurement>> results(batch.size());
  size_t done = 0;
  while (done < batch.size()) {
    for (auto& [ticket, m] : poll(-1)) {
      const auto at = std::find(tickets.begin(), tickets.end(), ticket);
      if (at == tickets.end()) continue;
      results[static_cast<size_t>(at - tickets.begin())] = std::move(m);
      ++done;
    }
  }
  std::vector<Measurement> out;
  for (auto& m : results) out.push_back(std::move(*m));
  return out;
}

size_t ProcessRunner::idle() const {
  size_t idle = 0;
  for (const auto& w : impl_->workers) idle += w.state == Impl::State::kIdle;
  return idle > impl_->queue.size() ? idle - impl_->queue.size() : 0;
}

size_t ProcessRunner::accepting() const {
  size_t idle = 0;
  for (const auto& w : impl_->workers) {
    if (w.state == Impl::State::kIdle || w.state == Impl::State::kBusy) {
      idle += kJobsPerWorker - std::min(kJobsPerWorker, w.jobs.size());
    }
  }
  return idle > impl_->queue.size() ? idle - impl_->queue.size() : 0;
}

size_t ProcessRunner::busy() const {
  size_t busy = impl_->queue.size() + impl_->ready.size();
  for (const auto& w : impl_->workers) busy += w.jobs.size();
  return busy;
}

uint64_t ProcessRunner::submit(Candidate candidate) {
  if (!impl_->baseline) throw Error(ErrorCode::kUsage, "submit() before set_reference()");
  const uint64_t ticket = impl_->next_ticket++;
  impl_->queue.push_back({ticket, std::move(candidate), 0});
  impl_->dispatch();
  return ticket;
}

std::vector<std::pair<uint64_t, Measurement>> ProcessRunner::poll(int timeout_ms) {
  Impl& p = *impl_;
  p.dispatch();
  p.pump(p.ready.empty() ? timeout_ms : 0);
  std::vector<Impl::Finished> finished;
  finished.swap(p.ready);
  // Judged here, outside pump(): a slow check delays reading the other workers' results, and
  // pump() reads what is waiting before it looks at their deadlines.
  std::vector<std::pair<uint64_t, Measurement>> out;
  for (Impl::Finished& f : finished) {
    p.judge_result(&f.m, std::move(f.outputs));
    out.emplace_back(f.ticket, std::move(f.m));
  }
  return out;
}

PhaseListener ProcessRunner::set_phase_listener(PhaseListener listener) {
  std::swap(impl_->on_phase, listener);
  return listener;
}

double ProcessRunner::limit_s() const { return impl_->limit(); }
WorkerStats ProcessRunner::stats() const { return impl_->stats; }

std::vector<int> ProcessRunner::worker_pids() const {
  std::vector<int> pids;
  for (const auto& w : impl_->workers) pids.push_back(w.child.pid);
  return pids;
}

std::unique_ptr<ProcessRunner> make_process_runner(const Problem& problem,
                                                   std::vector<int> ordinals,
                                                   const TimingOptions& timing, Compiler& compiler,
                                                   WatchdogOptions watchdog, PhaseListener on_phase,
                                                   HostCheck host_check) {
  watchdog.timing_s = sampling_limit_seconds(timing) + timing.warmup_ms / 1e3;
  const bool keep_outputs = static_cast<bool>(host_check);
  OutputCheckers checkers;
  std::optional<ReferenceKernel> reference;
  InputFillers fillers;
  for (const DeviceInfo& gpu : list_gpus()) {
    // GPUs of one search are identical; an ordinal not listed fails in its worker (kNoGpu).
    if (!keep_outputs && !ordinals.empty() && gpu.ordinal == ordinals.front()) {
      checkers = compile_output_checkers(problem.spec(), compiler, gpu.arch());
      reference = compile_reference_kernel(problem, compiler, gpu.arch());
      fillers = compile_input_fillers(problem.spec(), compiler, gpu.arch());
    }
  }
  OutputJudge judge;
  if (keep_outputs) judge = make_host_check_judge(problem, std::move(host_check));
  const Problem* p = &problem;
  return std::make_unique<ProcessRunner>(
      std::move(ordinals),
      [p, timing, checkers, fillers, reference, keep_outputs](int ordinal) {
        return make_gpu_runner(*p, ordinal, timing, checkers, nullptr, fillers, reference,
                               keep_outputs);
      },
      watchdog, std::move(on_phase), std::move(judge));
}

}  // namespace gputune
