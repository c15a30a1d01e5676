#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/error.h"
#include "run/constant_binding.h"
#include "run/cuda_driver.h"
#include "run/device_fill.h"
#include "run/host_buffers.h"
#include "run/launch_counters.h"
#include "run/launch_limits.h"
#include "run/output_check.h"
#include "run/runner.h"
#include "run/sampling.h"
#include "run/scalar_visit.h"

namespace gputune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool is_image_error(CUresult result) {
  return result == CUDA_ERROR_NO_BINARY_FOR_GPU || result == CUDA_ERROR_INVALID_IMAGE ||
         result == CUDA_ERROR_INVALID_PTX || result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND || result == CUDA_ERROR_INVALID_SOURCE;
}

// A module loaded ahead of its variant's turn (Runner::set_lookahead).
struct Prefetched {
  Candidate candidate;
  bool loaded = false;
  CUresult result = CUDA_SUCCESS;
  cuda::Module module;
};

// Everything that lives in the CUDA context; dropped and rebuilt after a sticky error.
struct DeviceState {
  cuda::Stream stream;
  cuda::Event start, stop;
  cuda::Event busy_start, busy_stop;           // around launches not timed as samples
  std::unique_ptr<DeviceFill> fill;            // null: every input was filled on the host
  std::vector<cuda::DeviceBuffer> buffers;     // parallel to GpuRunner::host_
  cuda::DeviceBuffer flush;                    // written between samples to evict L2
  std::vector<cuda::DeviceBuffer> references;  // outputs' reference, for checking on the GPU
  std::unique_ptr<DeviceOutputCheck> check;    // loaded once there is a reference
  std::deque<Prefetched> prefetched;           // oldest first
};

// Modules loaded ahead and not yet taken: the next one is what the lookahead offers; an older
// one stays in case the candidates come in another order.
constexpr size_t kMaxPrefetched = 2;

bool same_candidate(const Candidate& a, const Candidate& b) {
  return a.variant.index == b.variant.index && a.variant.config == b.variant.config &&
         a.kernel.image == b.kernel.image;
}

class GpuRunner : public Runner {
 public:
  GpuRunner(const Problem& problem, int ordinal, const TimingOptions& timing,
            OutputCheckers checkers, std::shared_ptr<const StoppingRule> stopping,
            InputFillers fillers, std::optional<ReferenceKernel> reference, bool keep_outputs)
      : timing_(timing),
        stopping_(stopping ? std::move(stopping) : std::make_shared<AdaptiveStopping>(timing)),
        arguments_(problem.spec().arguments),
        check_outputs_(problem.spec().check_outputs && !keep_outputs),
        keep_outputs_(keep_outputs),
        rtol_(problem.spec().rtol),
        atol_(problem.spec().atol),
        checkers_(std::move(checkers)),
        fillers_(std::move(fillers)),
        reference_(check_outputs_ ? std::move(reference) : std::nullopt),
        kernel_file_(problem.spec().kernel_path) {
    device_ = cuda::query_device(ordinal);  // throws kNoGpu first, before any allocation
    context_ = std::make_unique<cuda::Context>(ordinal);
    host_ = make_host_buffers(problem, [this](const ArgumentSpec& argument) {
      return filled_on_device(argument) && fillers_.count(argument.type) > 0;
    });
    for (const HostBuffer& host : host_) {
      if (check_outputs_ && host.output && !checkers_.count(host.shape.type)) {
        throw Error(ErrorCode::kInternal,
                    "no output checker " + output_checker_name(host.shape.type) + " for output '" +
                        host.shape.name + "' was handed to the runner");
      }
    }
    setup_device();
  }

  ~GpuRunner() override {
    try {
      context_->make_current();
    } catch (...) {
    }
    state_.reset();
  }

  const DeviceInfo& device() const override { return device_; }

  Measurement set_reference(const Candidate& baseline) override {
    throw_if_lost();
    if (reference_ && !reference_computed_) {
      context_->make_current();
      compute_reference_outputs(baseline.variant);
      reference_computed_ = true;
    }
    Measurement m = measure(baseline, /*is_reference=*/true);
    // Against a reference kernel's outputs the baseline is a variant like any other.
    const bool baseline_checked = reference_ && m.status == Status::kWrongAnswer;
    if (m.status != Status::kOk && !baseline_checked) {
      const ErrorCode code =
          m.status == Status::kRuntimeError ? ErrorCode::kCuda : ErrorCode::kSpec;
      throw Error(code, std::string("the baseline (") + baseline.variant.config + ") failed, " +
                            "so nothing can be checked: " + status_name(m.status) + ": " +
                            m.message);
    }
    for (const HostBuffer& host : host_) {
      if (!check_outputs_ || !host.output || host.given_reference) continue;
      const uint64_t unwritten = count_nan(host.shape.type, host.data, host.region);
      if (unwritten > 0) {
        throw Error(ErrorCode::kSpec,
                    "the baseline (" + baseline.variant.config + ") left " +
                        std::to_string(unwritten) + " elements of '" + host.shape.name + "'" +
                        (host.region.is_whole() ? "" : " in its check region") +
                        " NaN (unwritten after poisoning?), so nothing can be checked against "
                        "it; expected every checked element written, else give the output a "
                        "fill (initialised), limit the check to a region, or check: none");
      }
    }
    if (check_outputs_) load_device_check();
    has_reference_ = true;
    return m;
  }

  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    throw_if_lost();
    if (!has_reference_) throw Error(ErrorCode::kUsage, "run() before set_reference()");
    std::vector<Measurement> results;
    results.reserve(batch.size());
    for (const Candidate& candidate : batch) {
      results.push_back(measure(candidate, false));
      if (!lost_.empty()) break;  // the rest cannot run in this process
    }
    return results;
  }

  void set_lookahead(Lookahead next) override { lookahead_ = std::move(next); }

  double measure_copy_bandwidth() override {
    throw_if_lost();
    context_->make_current();
    constexpr size_t kMiB = size_t{1} << 20;
    const size_t free_bytes = cuda::memory_info().free_bytes;
    const size_t bytes = std::min<size_t>(size_t{1} << 30, free_bytes / 4) / kMiB * kMiB;
    if (bytes == 0) throw Error(ErrorCode::kCuda, "no free GPU memory to measure copies with");
    cuda::DeviceBuffer source(bytes), destination(bytes);
    source.fill_bytes(0x3C);
    const cuda::Stream& stream = state_->stream;
    for (int i = 0; i < 3; ++i) destination.copy_from_async(source, stream);
    stream.synchronize();
    std::vector<double> samples;
    for (int i = 0; i < 20; ++i) {
      state_->start.record(stream.get());
      destination.copy_from_async(source, stream);
      state_->stop.record(stream.get());
      state_->stop.synchronize();
      samples.push_back(cuda::elapsed_ms(state_->start, state_->stop));
    }
    return 2.0 * static_cast<double>(bytes) / (median(samples) * 1e6);
  }

  std::vector<std::vector<unsigned char>> take_checked_outputs() override {
    return std::exchange(checked_outputs_, {});
  }

  RangeCounters profile(const Candidate& candidate,
                        const std::vector<RangeMetric>& metrics) override {
    throw_if_lost();
    RangeCounters out;
    if (!candidate.kernel.ok) {
      out.message = "the variant did not compile";
      return out;
    }
    context_->make_current();
    if (!range_profiler_)
      range_profiler_ = std::make_unique<RangeProfiler>(device_.ordinal, context_->get());
    if (!range_profiler_->unavailable_reason().empty()) {
      out.unavailable = true;
      out.message = range_profiler_->unavailable_reason();
      return out;
    }
    try {
      cuda::Module module;
      std::vector<CUfunction> functions;
      Prepared prepared;
      Measurement m;
      if (!load(candidate, &module, &functions, &prepared, &m)) {
        out.message = m.message;
        return out;
      }
      prepare_outputs(/*poison=*/false);
      state_->stream.synchronize();
      out = range_profiler_->profile(metrics, [&]() {
        const CUresult launched = launch_all(prepared);
        if (launched != CUDA_SUCCESS) return launched;
        try {
          state_->stream.synchronize("kernel execution");
        } catch (const cuda::CudaError& e) {
          return e.result();
        }
        return CUDA_SUCCESS;
      });
      if (out.ok) {
        const Prepared::Call& first = prepared.calls.front();
        const Launch& l = *first.launch;
        BlockUsage block;
        block.threads = static_cast<int>(l.block[0] * l.block[1] * l.block[2]);
        block.registers = cuda::function_attribute(first.function, CU_FUNC_ATTRIBUTE_NUM_REGS);
        block.shared_bytes =
            cuda::function_attribute(first.function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) +
            static_cast<int>(l.dynamic_shared_bytes);
        for (const auto& [name, value] : launch_counters(device_, block)) {
          out.launches.front().emplace(name, value);
        }
      }
    } catch (const cuda::CudaError& e) {
      out.ok = false;
      out.message = e.what();
      out.context_lost = cuda::is_sticky(e.result());
    }
    if (out.context_lost) {
      Measurement failed;
      failed.config = candidate.variant.config;
      failed.message = out.message;
      recover(failed);
    }
    return out;
  }

 private:
  void setup_device() {
    state_ = std::make_unique<DeviceState>();
    if (!fillers_.empty()) state_->fill = std::make_unique<DeviceFill>(fillers_);
    for (const HostBuffer& host : host_) {
      if (host.constant) {  // lives in each module's __constant__ symbol instead
        state_->buffers.emplace_back();
        continue;
      }
      state_->buffers.emplace_back(host.shape.count * size_of(host.shape.type));
      if (host.output || host.scratch) continue;
      if (host.device_fill) {
        state_->fill->fill(arguments_[host.argument], state_->buffers.back(), device_.sm_count,
                           state_->stream);
      } else {
        state_->buffers.back().upload(host.input.data());
      }
    }
    if (timing_.flush_l2) {
      const size_t bytes = std::max<int64_t>(device_.l2_bytes, 1 << 20) * 2;
      state_->flush = cuda::DeviceBuffer(bytes / 4 * 4);
    }
    state_->stream.synchronize();
    if (has_reference_ && check_outputs_) load_device_check();
  }

  // Runs the reference kernel on the inputs (with the baseline's scalar arguments) and keeps
  // its outputs as the reference of those outputs that have none given. Its failures are
  // errors that name it: without it nothing can be checked.
  void compute_reference_outputs(const Variant& baseline) {
    const ReferenceLaunch& launch = reference_->launch;
    const std::string who = "the " + launch.name;
    cuda::Module module;
    CUresult result = cuda::Module::load(reference_->kernel.image, &module);
    if (result != CUDA_SUCCESS) {
      throw Error(ErrorCode::kCuda,
                  who + " does not load: cuModuleLoadData: " + cuda::cuda_error_name(result) +
                      "; expected it compiled for this GPU");
    }
    CUfunction function = nullptr;
    result = module.function(reference_->kernel.lowered_names.front(), &function);
    if (result != CUDA_SUCCESS) {
      throw Error(ErrorCode::kSpec,
                  who + " is not in its module: " + cuda::cuda_error_name(result));
    }
    // Its source may declare the constants it reads, or none.
    if (std::string why = upload_constants(module, /*missing_ok=*/true); !why.empty()) {
      throw Error(ErrorCode::kSpec, who + ": " + why);
    }
    if (std::string why = fit_launch(*context_, function, launch.launch); !why.empty()) {
      throw Error(ErrorCode::kSpec,
                  who + " cannot be launched: " + why + "; expected a launch this GPU takes");
    }
    std::vector<uint64_t> slots;
    for (size_t a : launch.launch.arguments) slots.push_back(argument_slot(a, baseline));
    std::vector<void*> params;
    for (uint64_t& slot : slots) params.push_back(&slot);
    prepare_outputs(/*poison=*/true);
    try {
      const Launch& l = launch.launch;
      cuda::check(cuda::launch(function, {l.grid[0], l.grid[1], l.grid[2]},
                               {l.block[0], l.block[1], l.block[2]}, l.dynamic_shared_bytes,
                               state_->stream, params.data()),
                  "cuLaunchKernel");
      state_->stream.synchronize("kernel execution");
    } catch (const cuda::CudaError& e) {
      throw Error(ErrorCode::kCuda, who + " failed: " + e.what() +
                                        "; expected it to run on the spec's inputs as given");
    }
    for (size_t i = 0; i < host_.size(); ++i) {
      HostBuffer& host = host_[i];
      if (!host.output || host.given_reference) continue;
      host.data.resize(state_->buffers[i].bytes());
      state_->buffers[i].download(host.data.data());
      host.given_reference = true;
      const uint64_t unwritten = count_nan(host.shape.type, host.data, host.region);
      if (unwritten > 0) {
        throw Error(ErrorCode::kSpec,
                    who + " left " + std::to_string(unwritten) + " elements of '" +
                        host.shape.name + "'" +
                        (host.region.is_whole() ? "" : " in its check region") +
                        " NaN (unwritten after poisoning?), so nothing can be checked against "
                        "it; expected it to write every checked element, else give the output "
                        "a fill (initialised) or limit the check to a region");
      }
    }
  }

  // Downloading a large output and walking it on the host costs more than measuring the
  // variant (256 MB at n = 8192), so outputs are checked where they are; the host compares
  // only when the GPU finds a mismatch, for the message.
  void load_device_check() {
    state_->references.clear();
    for (const HostBuffer& host : host_) {
      state_->references.emplace_back();
      if (!host.output || host.data.empty()) continue;
      state_->references.back() = cuda::DeviceBuffer(host.data.size());
      state_->references.back().upload(host.data.data());
    }
    state_->check = std::make_unique<DeviceOutputCheck>(checkers_);
  }

  // True when every element of output i passes the check against the reference.
  bool matches_on_device(size_t i) {
    const HostBuffer& host = host_[i];
    if (i >= state_->references.size() ||
        state_->references[i].bytes() != state_->buffers[i].bytes()) {
      return false;
    }
    return state_->check->matches(host.shape.type, state_->buffers[i], state_->references[i],
                                  host.region, rtol_, atol_, device_.sm_count, state_->stream);
  }

  // The way out of a sticky error: everything in the context goes, then comes back. The
  // 580 driver refuses this (the whole process stays poisoned, as its documentation says), so
  // failing is expected: the runner is then lost, and only a new process can go on.
  void recover(const Measurement& failed) {
    range_profiler_.reset();
    state_.reset();
    try {
      context_->reset();
      setup_device();
    } catch (const Error& e) {
      lost_ = "the GPU is unusable in this process after " + failed.message + " in variant " +
              failed.config + " (" + e.what() +
              "; the driver cannot recover from this error in the same process). Run again: "
              "what was measured is stored and is not measured twice";
    }
  }

  void throw_if_lost() const {
    if (!lost_.empty()) throw Error(ErrorCode::kCuda, lost_);
  }

  Measurement measure(const Candidate& candidate, bool is_reference) {
    Measurement m;
    m.config_index = candidate.variant.index;
    m.config = candidate.variant.config;
    m.compile_ms = candidate.kernel.compile_ms;
    m.registers = candidate.kernel.registers;
    m.shared_bytes = candidate.kernel.shared_bytes;
    m.spill_bytes = candidate.kernel.spill_bytes;
    checked_outputs_.clear();
    if (!candidate.kernel.ok) {
      m.status = Status::kCompileError;
      m.message = candidate.kernel.log;
      return m;
    }
    const auto start = Clock::now();
    try {
      context_->make_current();
      evaluate(candidate, is_reference, &m);
    } catch (const cuda::CudaError& e) {
      m.status = Status::kRuntimeError;
      m.message = e.what();
      m.samples_ms.clear();
      checked_outputs_.clear();
      if (cuda::is_sticky(e.result())) recover(m);
    }
    m.check_ms = std::max(0.0, seconds_since(start) * 1e3 - m.time_ms);  // all but the timing
    return m;
  }

  // A variant's launches, ready to go: each with its function and argument slots.
  struct Prepared {
    struct Call {
      const Launch* launch = nullptr;
      CUfunction function = nullptr;
      std::vector<uint64_t> slots;  // each argument's bytes: a device pointer or a scalar
      std::vector<void*> params;    // pointers into slots, as cuLaunchKernel takes them
    };
    std::vector<Call> calls;
  };

  // Launches every call in order; the first failure stops and is returned.
  CUresult launch_all(Prepared& prepared) const {
    for (Prepared::Call& call : prepared.calls) {
      const Launch& l = *call.launch;
      const CUresult result = cuda::launch(
          call.function, {l.grid[0], l.grid[1], l.grid[2]}, {l.block[0], l.block[1], l.block[2]},
          l.dynamic_shared_bytes, state_->stream, call.params.data());
      if (result != CUDA_SUCCESS) return result;
    }
    return CUDA_SUCCESS;
  }

  void launch_all_or_throw(Prepared& prepared) const {
    cuda::check(launch_all(prepared), "cuLaunchKernel");
  }

  // The bytes of spec argument `a` as a kernel parameter: its buffer's device pointer or its
  // scalar value converted to its type.
  uint64_t argument_slot(size_t a, const Variant& v) const {
    uint64_t slot = 0;
    size_t buffer = 0, scalar = 0;
    for (size_t i = 0; i < a; ++i) (arguments_[i].is_buffer ? buffer : scalar) += 1;
    const ArgumentSpec& argument = arguments_[a];
    if (argument.is_buffer) {
      const CUdeviceptr pointer = state_->buffers[buffer].get();
      std::memcpy(&slot, &pointer, sizeof(pointer));
      return slot;
    }
    if (scalar >= v.scalar_arguments.size()) {
      throw Error(ErrorCode::kInternal, "the variant lacks scalar argument " + argument.name);
    }
    visit_type(argument.type, [&](auto zero) {
      const auto converted = convert<decltype(zero)>(v.scalar_arguments[scalar]);
      std::memcpy(&slot, &converted, sizeof(converted));
      return 0;
    });
    return slot;
  }

  // Copies each constant argument into its symbol of a freshly loaded module (constant memory
  // belongs to the module, so every variant's needs it); returns why one cannot be, or "".
  std::string upload_constants(const cuda::Module& module, bool missing_ok = false) const {
    for (const HostBuffer& host : host_) {
      if (!host.constant) continue;
      cuda::Module::Global global;
      const CUresult result = module.global(host.symbol, &global);
      if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_FOUND) {
        throw cuda::CudaError(result, "cuModuleGetGlobal");
      }
      if (result == CUDA_ERROR_NOT_FOUND && missing_ok) continue;
      const int64_t symbol_bytes = result == CUDA_SUCCESS ? static_cast<int64_t>(global.bytes) : -1;
      const std::string why = constant_binding_error(host.shape.name, host.symbol,
                                                     host.input.size(), symbol_bytes, kernel_file_);
      if (!why.empty()) return why;
      cuda::Module::upload(global, host.input.data(), host.input.size());
    }
    return "";
  }

  // Loads the candidate's module and readies its launches; false (with m's status and
  // message) for a variant that cannot run. A CUDA failure propagates as CudaError.
  bool load(const Candidate& candidate, cuda::Module* module, std::vector<CUfunction>* functions,
            Prepared* prepared, Measurement* m) {
    const Variant& v = candidate.variant;
    auto fail = [m](Status status, const std::string& message) {
      m->status = status;
      m->message = message;
      return false;
    };

    CUresult result = CUDA_SUCCESS;
    if (!take_prefetched(candidate, module, &result)) {
      result = cuda::Module::load(candidate.kernel.image, module);
    }
    if (result != CUDA_SUCCESS) {
      if (!is_image_error(result)) throw cuda::CudaError(result, "cuModuleLoadData");
      return fail(Status::kCompileError, "cuModuleLoadData: " + cuda::cuda_error_name(result) +
                                             " (compiled for another architecture?)");
    }
    const CompiledKernel& kernel = candidate.kernel;
    for (const std::string& name : kernel.lowered_names) {
      CUfunction function = nullptr;
      result = module->function(name, &function);
      if (result != CUDA_SUCCESS) {
        return fail(Status::kCompileError,
                    "no kernel '" + name + "' in the module: " + cuda::cuda_error_name(result));
      }
      functions->push_back(function);
    }

    if (std::string why = upload_constants(*module); !why.empty()) {
      return fail(Status::kCompileError, why);
    }

    for (const Launch& launch : v.launches) {
      if (launch.kernel >= functions->size()) {
        throw Error(ErrorCode::kInternal, "a launch names kernel " + std::to_string(launch.kernel) +
                                              " of " + std::to_string(functions->size()) +
                                              " compiled");
      }
      Prepared::Call& call = prepared->calls.emplace_back();
      call.launch = &launch;
      call.function = (*functions)[launch.kernel];
      if (std::string why = fit_launch(*context_, call.function, launch); !why.empty()) {
        if (v.launches.size() > 1) {
          why = v.kernel_name_expressions[launch.kernel] + " (launch " +
                std::to_string(prepared->calls.size()) + "): " + why;
        }
        return fail(Status::kResourceExceeded, why);
      }
      for (size_t a : launch.arguments) call.slots.push_back(argument_slot(a, v));
      // A block-merged kernel's extra parameters: the original grid's extents (unsigned int).
      for (uint32_t extent : launch.trailing_arguments) call.slots.push_back(extent);
    }
    for (Prepared::Call& call : prepared->calls) {
      for (uint64_t& slot : call.slots) call.params.push_back(&slot);
    }
    return true;
  }

  // Fills m; a CUDA failure propagates as CudaError, which measure() turns into the Status.
  void evaluate(const Candidate& candidate, bool is_reference, Measurement* m) {
    auto fail = [m](Status status, const std::string& message) {
      m->status = status;
      m->message = message;
    };
    cuda::Module module;
    std::vector<CUfunction> functions;
    Prepared prepared;
    if (!load(candidate, &module, &functions, &prepared, m)) return;

    // ptxas's log says what a kernel uses; where it did not (an unparsed log), the loaded
    // functions do.
    if (m->registers == 0) {
      for (CUfunction function : functions) {
        int value = 0;
        if (cuda::try_function_attribute(function, CU_FUNC_ATTRIBUTE_NUM_REGS, &value) ==
            CUDA_SUCCESS) {
          m->registers = std::max(m->registers, value);
        }
        if (cuda::try_function_attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &value) ==
            CUDA_SUCCESS) {
          m->shared_bytes = std::max(m->shared_bytes, value);
        }
      }
    }

    prepare_outputs(/*poison=*/true);
    state_->busy_start.record(state_->stream.get());
    if (timing_.profile_checked_run) cuda::profiler_start();
    CUresult result = launch_all(prepared);
    if (timing_.profile_checked_run) cuda::profiler_stop();
    if (result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || result == CUDA_ERROR_INVALID_VALUE) {
      return fail(Status::kResourceExceeded, "cuLaunchKernel: " + cuda::cuda_error_name(result));
    }
    cuda::check(result, "cuLaunchKernel");
    state_->busy_stop.record(state_->stream.get());
    load_prefetched();  // while the GPU runs the checked launches
    state_->stream.synchronize("kernel execution");
    last_gpu_work_s_ = steady_seconds();
    m->gpu_busy_ms += cuda::elapsed_ms(state_->busy_start, state_->busy_stop);
    if (keep_outputs_) keep_checked_outputs();

    std::string mismatch;
    for (size_t i = 0; i < host_.size(); ++i) {
      HostBuffer& host = host_[i];
      if (!host.output || !check_outputs_) continue;
      if (is_reference && !host.given_reference) {
        host.data.resize(state_->buffers[i].bytes());
        state_->buffers[i].download(host.data.data());
        continue;
      }
      if (!is_reference && matches_on_device(i)) continue;
      std::vector<unsigned char> got(state_->buffers[i].bytes());
      state_->buffers[i].download(got.data());
      std::string diff = compare_on_host(host.shape.name, host.shape.type, got.data(),
                                         host.data.data(), host.region, rtol_, atol_);
      if (!diff.empty()) mismatch += (mismatch.empty() ? "" : "; ") + diff;
    }
    if (!mismatch.empty()) return fail(Status::kWrongAnswer, mismatch);

    prepare_outputs(/*poison=*/false);
    const auto timing_start = Clock::now();
    TimedSamples timed = time(prepared, candidate.race, &m->gpu_busy_ms);
    m->samples_ms = std::move(timed.samples_ms);
    m->cut_short = timed.cut_short ? 1 : 0;
    m->time_ms = seconds_since(timing_start) * 1e3;
    m->status = Status::kOk;
  }

  void keep_checked_outputs() {
    for (size_t i = 0; i < host_.size(); ++i) {
      if (!host_[i].output) continue;
      std::vector<unsigned char>& bytes = checked_outputs_.emplace_back(state_->buffers[i].bytes());
      state_->buffers[i].download(bytes.data());
    }
  }

  // Initialised outputs get their initial contents; the others, and scratch, are poisoned
  // where `poison` asks for it (before a checked run), so that unwritten elements show.
  void prepare_outputs(bool poison) {
    for (size_t i = 0; i < host_.size(); ++i) {
      const HostBuffer& host = host_[i];
      if (host.output && host.device_fill) {
        state_->fill->fill(arguments_[host.argument], state_->buffers[i], device_.sm_count,
                           state_->stream);
      } else if (!host.initial.empty()) {
        state_->buffers[i].upload(host.initial.data());
      } else if (poison && (host.output || host.scratch)) {
        state_->buffers[i].fill_bytes_async(is_floating(host.shape.type) ? 0xFF : 0xA5,
                                            state_->stream);
      }
    }
  }

  // Event-timed launches, one per sample, until the stopping rule says enough or the race is
  // lost. Adds the GPU time of every launch, warm-up included, to *busy_ms.
  TimedSamples time(Prepared& prepared, const RaceLimit& race, double* busy_ms) {
    const cuda::Stream& stream = state_->stream;
    uint32_t stamp = 0;
    double warmup_ms = 0;
    const bool gpu_hot = steady_seconds() - last_gpu_work_s_ < timing_.hot_window_s;
    TimedSamples timed = collect_samples(
        *stopping_,
        [&] {
          state_->busy_start.record(stream.get());
          launch_all_or_throw(prepared);
          state_->busy_stop.record(stream.get());
          stream.synchronize();
          warmup_ms += cuda::elapsed_ms(state_->busy_start, state_->busy_stop);
        },
        [&] {
          if (timing_.flush_l2) state_->flush.fill_words_async(++stamp, stream);
          state_->start.record(stream.get());
          launch_all_or_throw(prepared);
          state_->stop.record(stream.get());
          state_->stop.synchronize();
          return static_cast<double>(cuda::elapsed_ms(state_->start, state_->stop));
        },
        race, steady_seconds, gpu_hot);
    last_gpu_work_s_ = steady_seconds();
    *busy_ms += warmup_ms;
    for (double sample : timed.samples_ms) *busy_ms += sample;
    return timed;
  }

  // Takes the module loaded ahead for `candidate`, with its load's result, if there is one.
  bool take_prefetched(const Candidate& candidate, cuda::Module* module, CUresult* result) {
    for (auto p = state_->prefetched.begin(); p != state_->prefetched.end(); ++p) {
      if (!p->loaded || !same_candidate(p->candidate, candidate)) continue;
      *module = std::move(p->module);
      *result = p->result;
      state_->prefetched.erase(p);
      return true;
    }
    return false;
  }

  // Loads the candidate the lookahead says comes next, unless it is loaded already.
  void load_prefetched() {
    const Candidate* next = lookahead_ ? lookahead_() : nullptr;
    if (next == nullptr || !next->kernel.ok) return;
    for (const Prefetched& p : state_->prefetched) {
      if (same_candidate(p.candidate, *next)) return;
    }
    if (state_->prefetched.size() == kMaxPrefetched) state_->prefetched.pop_front();
    Prefetched& p = state_->prefetched.emplace_back();
    p.candidate = *next;
    p.result = cuda::Module::load(p.candidate.kernel.image, &p.module);
    p.loaded = true;
  }

  TimingOptions timing_;
  std::shared_ptr<const StoppingRule> stopping_;
  // When the GPU last finished this runner's work (steady seconds): a hot GPU warms up briefly.
  double last_gpu_work_s_ = -1e300;
  std::vector<ArgumentSpec> arguments_;
  bool check_outputs_;
  bool keep_outputs_;  // for a host check: see take_checked_outputs()
  std::vector<std::vector<unsigned char>> checked_outputs_;
  double rtol_, atol_;
  OutputCheckers checkers_;
  InputFillers fillers_;
  std::optional<ReferenceKernel> reference_;
  bool reference_computed_ = false;  // its outputs are in host_, kept across context resets
  std::string kernel_file_;          // named where a constant's symbol is missing
  DeviceInfo device_;
  std::unique_ptr<cuda::Context> context_;
  std::vector<HostBuffer> host_;
  std::unique_ptr<DeviceState> state_;
  bool has_reference_ = false;
  std::string lost_;  // why the context is gone for good; empty while it works
  Lookahead lookahead_;
  std::unique_ptr<RangeProfiler> range_profiler_;  // made on the first profile
};

}  // namespace

std::unique_ptr<Runner> make_gpu_runner(const Problem& problem, int device_ordinal,
                                        const TimingOptions& timing, OutputCheckers checkers,
                                        std::shared_ptr<const StoppingRule> stopping,
                                        InputFillers fillers,
                                        std::optional<ReferenceKernel> reference,
                                        bool keep_outputs) {
  return std::make_unique<GpuRunner>(problem, device_ordinal, timing, std::move(checkers),
                                     std::move(stopping), std::move(fillers), std::move(reference),
                                     keep_outputs);
}

}  // namespace gputune
