#pragma once
// Stand-ins for what runs inside the engine's worker processes: a GPU runner whose variants
// hang, abort, poison the context or sleep as a script says, and a compiler that can crash.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compile/compiler.h"
#include "gputune/error.h"
#include "process/process_runner.h"
#include "run/runner.h"

namespace gputune::testing {

struct Script {
  std::set<uint64_t> hang;       // never returns
  std::set<uint64_t> abort;      // the worker process dies
  std::set<uint64_t> sticky;     // kRuntimeError; later calls throw, as after an illegal address
  std::set<uint64_t> wrong;      // kWrongAnswer
  std::set<uint64_t> resource;   // kResourceExceeded
  int sleep_ms = 0;              // every variant takes this long
  bool fail_start = false;       // the runner cannot be made (no GPU)
  bool distinct_models = false;  // each ordinal is another GPU model
  bool no_counters = false;      // profiles say the profiler cannot run here
};

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Times a variant as 1 + index / 10 ms. Its message says which process measured it and when:
// "pid start_ms end_ms".
class ScriptedRunner : public Runner {
 public:
  ScriptedRunner(Script script, int ordinal) : script_(std::move(script)) {
    if (script_.fail_start) {
      throw Error(ErrorCode::kNoGpu, "no GPU here (scripted); use --compile-only");
    }
    device_.ordinal = ordinal;
    device_.name = script_.distinct_models ? "Fake GPU " + std::to_string(ordinal) : "Fake GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  const DeviceInfo& device() const override { return device_; }
  Measurement set_reference(const Candidate& baseline) override {
    has_reference_ = true;
    return healthy(baseline);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    if (lost_) throw Error(ErrorCode::kCuda, "the GPU is unusable in this process. Run again");
    if (!has_reference_) throw Error(ErrorCode::kUsage, "run() before set_reference()");
    std::vector<Measurement> out;
    for (const Candidate& c : batch) {
      const uint64_t i = c.variant.index;
      if (script_.hang.count(i)) {
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      if (script_.abort.count(i)) std::abort();
      if (script_.sticky.count(i)) {
        Measurement m = base(c);
        m.status = Status::kRuntimeError;
        m.message = "kernel execution: CUDA_ERROR_ILLEGAL_ADDRESS";
        out.push_back(m);
        lost_ = true;
        break;
      }
      if (script_.wrong.count(i)) {
        Measurement m = base(c);
        m.status = Status::kWrongAnswer;
        m.message = "out: 1 of 16 elements differ";
        out.push_back(m);
        continue;
      }
      if (script_.resource.count(i)) {
        Measurement m = base(c);
        m.status = Status::kResourceExceeded;
        m.message = "too much shared memory";
        out.push_back(m);
        continue;
      }
      out.push_back(healthy(c));
    }
    return out;
  }
  double measure_copy_bandwidth() override { return 3000; }
  void set_lookahead(Lookahead next) override { lookahead_ = std::move(next); }
  // The script's hang, abort and sticky sets apply to profiles too; a profile otherwise reports
  // each metric as the variant's index, and "pid" as the worker's process id.
  RangeCounters profile(const Candidate& c, const std::vector<RangeMetric>& metrics) override {
    const uint64_t i = c.variant.index;
    if (script_.hang.count(i)) {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    if (script_.abort.count(i)) std::abort();
    RangeCounters out;
    out.source = "scripted";
    if (script_.no_counters) {
      out.unavailable = true;
      out.message = "no permission to read counters (scripted)";
      return out;
    }
    if (script_.sticky.count(i)) {
      out.message = "the profiled launch failed: CUDA_ERROR_ILLEGAL_ADDRESS";
      out.context_lost = true;
      return out;
    }
    auto& values = out.launches.emplace_back();
    for (const RangeMetric& metric : metrics) values[metric.report] = static_cast<double>(i);
    values["pid"] = getpid();
    out.ok = true;
    return out;
  }

 private:
  static Measurement base(const Candidate& c) {
    Measurement m;
    m.config_index = c.variant.index;
    m.config = c.variant.config;
    m.registers = c.kernel.registers;
    m.compile_ms = c.kernel.compile_ms;
    return m;
  }
  Measurement healthy(const Candidate& c) {
    const double start = now_ms();
    if (script_.sleep_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(script_.sleep_ms));
    }
    if (lookahead_) {
      if (const Candidate* next = lookahead_()) prefetched_.insert(next->variant.index);
    }
    Measurement m = base(c);
    const double t = 1 + static_cast<double>(c.variant.index) / 10;
    m.samples_ms = {t, t * 1.01, t * 0.99};
    m.check_ms = 1;
    m.time_ms = 2;
    m.message =
        std::to_string(getpid()) + " " + std::to_string(start) + " " + std::to_string(now_ms());
    if (prefetched_.count(c.variant.index)) m.message += " prefetched";
    return m;
  }

  Script script_;
  DeviceInfo device_;
  bool has_reference_ = false;
  bool lost_ = false;
  Lookahead lookahead_;
  std::set<uint64_t> prefetched_;  // what the lookahead offered
};

// Compiles anything into an image naming its input, slowly enough to show parallelism; options
// decide failures: -DFAIL=1 a compile error, -DCRASH=1 the process dies, -DTHROW=1 misuse.
class ScriptedCompiler : public Compiler {
 public:
  explicit ScriptedCompiler(int sleep_ms = 0) : sleep_ms_(sleep_ms) {}
  CompiledKernel compile(const CompileRequest& request) override {
    if (sleep_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    CompiledKernel kernel;
    kernel.ok = true;
    kernel.image = "cubin:" + request.arch + ":" + request.kernel_name_expressions.at(0);
    for (const auto& option : request.options) {
      kernel.image += " " + option;
      if (option == "-DFAIL=1") {
        kernel.ok = false;
        kernel.log = "kernel.cu(3): error: FAIL was asked for";
      }
      if (option == "-DCRASH=1") std::abort();
      if (option == "-DTHROW=1") throw Error(ErrorCode::kNvrtc, "nvrtc misuse (scripted)");
    }
    kernel.image += " #" + std::to_string(request.source.size());
    kernel.lowered_names = request.kernel_name_expressions;
    kernel.registers = 32 + static_cast<int>(request.options.size());
    kernel.shared_bytes = 128;
    kernel.compile_ms = 1;
    return kernel;
  }

 private:
  int sleep_ms_;
};

// Worker processes that run a script instead of a GPU.
inline RunnerFactory scripted(Script script) {
  return [script](int ordinal) { return std::make_unique<ScriptedRunner>(script, ordinal); };
}

// A watchdog short enough for tests: a stand-in that hangs is killed within a second.
inline WatchdogOptions quick_watchdog() {
  WatchdogOptions w;
  w.floor_s = 0.3;
  w.factor = 5;
  w.timing_s = 0;
  w.start_s = 10;
  return w;
}

}  // namespace gputune::testing
