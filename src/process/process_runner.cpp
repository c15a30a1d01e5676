#include "process/process_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>

#include "gputune/error.h"
#include "process/gpu_list.h"
#include "process/ipc.h"

namespace gputune {

namespace {

using Clock = std::chrono::steady_clock;

// Frame types between the driver and a GPU worker.
enum : uint32_t {
  kHello = 1,      // worker: its DeviceInfo, once the runner is up
  kFatal = 2,      // worker: an Error; it exits
  kReference = 3,  // driver: a candidate to set as the reference
  kRun = 4,        // driver: a candidate to measure
  kResult = 5,     // worker: a Measurement
  kBandwidth = 6,  // driver: measure the copy bandwidth
  kBandwidthResult = 7,
  kPhase = 8,  // worker: the SearchPhase it enters
};

// Launches a variant may get beyond the timing budget: the checked run, warm-up, the fewest
// samples, and slack.
constexpr double kLaunchesBeyondBudget = 8;

void put_candidate(wire::Writer& w, const Candidate& c) {
  wire::put(w, c.variant);
  wire::put(w, c.kernel);
  w.f64(c.race.cut_above_ms);
  w.i64(c.race.min_samples);
}

int send_fatal(int fd, const Error& e) {
  wire::Writer w;
  wire::put(w, e);
  ipc::write_frame(fd, kFatal, w.data());
  return 1;
}

bool send_phase(int fd, SearchPhase phase) {
  wire::Writer w;
  w.i64(static_cast<int64_t>(phase));
  return ipc::write_frame(fd, kPhase, w.data());
}

int worker_main(int fd, int ordinal, const RunnerFactory& factory) {
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
  uint32_t type = 0;
  std::string payload;
  while (ipc::read_frame(fd, &type, &payload)) {
    try {
      wire::Writer reply;
      if (type == kBandwidth) {
        reply.f64(runner->measure_copy_bandwidth());
        if (!ipc::write_frame(fd, kBandwidthResult, reply.data())) return 0;
        continue;
      }
      wire::Reader reader(payload);
      Candidate candidate;
      wire::get(reader, &candidate.variant);
      wire::get(reader, &candidate.kernel);
      candidate.race.cut_above_ms = reader.f64();
      candidate.race.min_samples = static_cast<int>(reader.i64());
      Measurement m;
      if (type == kReference) {
        m = runner->set_reference(candidate);
      } else {
        std::vector<Measurement> results = runner->run({candidate});
        if (results.empty()) throw Error(ErrorCode::kInternal, "the runner measured nothing");
        m = std::move(results[0]);
      }
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
  return 0;  // the driver closed the socket
}

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
    std::optional<Job> job;
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
  std::vector<Worker> workers;
  std::vector<DeviceInfo> devices;
  std::optional<Candidate> baseline;
  double reference_check_s = 0;
  double best_ms = std::numeric_limits<double>::infinity();
  std::deque<Job> queue;
  std::vector<std::pair<uint64_t, Measurement>> ready;
  uint64_t next_ticket = 1;
  ProcessRunnerStats stats;

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
    w->child = ipc::spawn([f, ordinal](int fd) { return worker_main(fd, ordinal, *f); });
    w->state = State::kStarting;
    w->started = Clock::now();
    w->deadline = after(watchdog.start_s);
  }

  void restart(Worker* w) {
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

  // Waits for the next frame of a worker that is being set up, past its phase messages; its
  // failures are the search's.
  uint32_t await(Worker* w, std::string* payload) {
    for (;;) {
      const uint32_t type = await_frame(w, payload);
      if (type != kPhase) return type;
      heard_phase(*payload);
    }
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

  void dispatch() {
    for (Worker& w : workers) {
      if (queue.empty()) return;
      if (w.state != State::kIdle) continue;
      wire::Writer message;
      put_candidate(message, queue.front().candidate);
      if (!ipc::write_frame(w.child.fd, kRun, message.data())) {
        died(&w);  // it exited after its last variant's sticky error; the next worker takes it
        continue;
      }
      w.job = std::move(queue.front());
      queue.pop_front();
      w.state = State::kBusy;
      w.started = Clock::now();
      w.limit_s = limit();
      w.deadline = after(w.limit_s);
    }
  }

  void finish(Worker* w, Measurement m) {
    note(m);
    ready.emplace_back(w->job->ticket, std::move(m));
    w->job.reset();
    w->state = State::kIdle;
  }

  // The worker's socket closed without a word.
  void died(Worker* w) {
    const int status = ipc::kill_child(&w->child);
    switch (w->state) {
      case State::kBusy: {
        ++stats.crashes;
        Job job = std::move(*w->job);
        w->job.reset();
        if (job.attempts == 0) {
          // Perhaps not the variant's doing (kill -9 from outside): once more on a new worker.
          ++job.attempts;
          queue.push_front(std::move(job));
        } else {
          ready.emplace_back(job.ticket,
                             failure(job.candidate, Status::kRuntimeError,
                                     "the GPU worker process died running this variant, twice (" +
                                         ipc::describe_exit(status) + ")"));
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
    wire::Reader reader(payload);
    if (type == kFatal) {
      Error e = wire::get_error(reader);
      if (w->state != State::kBusy) {
        ipc::kill_child(&w->child);
        w->state = State::kDead;
        throw Error(e.code(), name(*w) + " could not start again: " + e.what());
      }
      Candidate candidate = std::move(w->job->candidate);
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
      Candidate candidate = std::move(w.job->candidate);
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
                             WatchdogOptions watchdog, PhaseListener on_phase)
    : impl_(std::make_unique<Impl>()) {
  if (ordinals.empty()) throw Error(ErrorCode::kUsage, "no GPU to run on");
  impl_->factory = std::move(factory);
  impl_->watchdog = watchdog;
  impl_->on_phase = std::move(on_phase);
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
const std::vector<DeviceInfo>& ProcessRunner::devices() const { return impl_->devices; }

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
    p.note(m);
    if (!first) {
      p.reference_check_s = m.check_ms / 1e3;
      first = std::move(m);
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

size_t ProcessRunner::busy() const {
  size_t busy = impl_->queue.size() + impl_->ready.size();
  for (const auto& w : impl_->workers) busy += w.job.has_value();
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
  std::vector<std::pair<uint64_t, Measurement>> out;
  out.swap(p.ready);
  return out;
}

PhaseListener ProcessRunner::set_phase_listener(PhaseListener listener) {
  std::swap(impl_->on_phase, listener);
  return listener;
}

double ProcessRunner::limit_s() const { return impl_->limit(); }
const ProcessRunnerStats& ProcessRunner::stats() const { return impl_->stats; }

std::vector<int> ProcessRunner::worker_pids() const {
  std::vector<int> pids;
  for (const auto& w : impl_->workers) pids.push_back(w.child.pid);
  return pids;
}

std::unique_ptr<ProcessRunner> make_process_runner(const Problem& problem,
                                                   std::vector<int> ordinals,
                                                   const TimingOptions& timing, Compiler& compiler,
                                                   WatchdogOptions watchdog,
                                                   PhaseListener on_phase) {
  watchdog.timing_s = sampling_limit_seconds(timing) + timing.warmup_ms / 1e3;
  OutputCheckers checkers;
  for (const DeviceInfo& gpu : list_gpus()) {
    // GPUs of one search are identical; an ordinal not listed fails in its worker (kNoGpu).
    if (!ordinals.empty() && gpu.ordinal == ordinals.front()) {
      checkers = compile_output_checkers(problem.spec(), compiler, gpu.arch());
    }
  }
  const Problem* p = &problem;
  return std::make_unique<ProcessRunner>(
      std::move(ordinals),
      [p, timing, checkers](int ordinal) { return make_gpu_runner(*p, ordinal, timing, checkers); },
      watchdog, std::move(on_phase));
}

}  // namespace gputune
