#include "run/gpu_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

#include "gputune/error.h"
#include "run/argument_use.h"
#include "run/launch_limits.h"

namespace gputune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

GpuRunner::GpuRunner(const Problem& problem, int ordinal, const TimingOptions& timing,
                     OutputCheckers checkers, std::shared_ptr<const StoppingRule> stopping,
                     InputFillers fillers, std::optional<ReferenceKernel> reference,
                     bool keep_outputs)
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
      throw Error(ErrorCode::kInternal, "no output checker " +
                                            output_checker_name(host.shape.type) + " for output '" +
                                            host.shape.name + "' was handed to the runner");
    }
  }
  setup_device();
}

GpuRunner::~GpuRunner() {
  try {
    context_->make_current();
  } catch (...) {
  }
  state_.reset();
}

Measurement GpuRunner::set_reference(const Candidate& baseline) {
  throw_if_lost();
  if (reference_ && !reference_computed_) {
    context_->make_current();
    compute_reference_outputs(baseline.variant);
    reference_computed_ = true;
  }
  context_->make_current();
  const std::vector<std::vector<unsigned char>> before = argument_contents(/*before=*/true);
  Measurement m = measure(baseline, /*is_reference=*/true);
  // Which arguments it used otherwise than declared: part of the error where its failure
  // stops the search, else the ok baseline's message (the session warns, --strict stops).
  std::string misused;
  if (m.status == Status::kOk || m.status == Status::kWrongAnswer) {
    const std::vector<std::vector<unsigned char>> after = argument_contents(/*before=*/false);
    misused = misused_arguments(host_, before, after);
    // An input the kernel changes would reach the next variant changed: every variant's checked
    // run starts from the inputs as filled instead.
    changed_inputs_.clear();
    for (size_t i = 0; i < host_.size(); ++i) {
      if (!host_[i].output && !before[i].empty() && before[i] != after[i]) {
        changed_inputs_.push_back(i);
      }
    }
    restore_changed_inputs();
  }
  const std::string also = misused.empty() ? "" : "; the baseline also " + misused;
  // Against expected outputs the spec gives (or its reference kernel computed) the baseline is
  // a variant like any other: a wrong one is its result, and the search goes on. Where its
  // outputs are the reference its failure leaves nothing to check against; and a runtime
  // error still stops, since every GPU worker started again runs the baseline first.
  const bool judged =
      check_outputs_ && every_output_given(host_) && m.status != Status::kRuntimeError;
  if (m.status != Status::kOk && !judged) {
    const ErrorCode code = m.status == Status::kRuntimeError ? ErrorCode::kCuda : ErrorCode::kSpec;
    throw Error(code, std::string("the baseline (") + baseline.variant.config + ") failed, " +
                          "so nothing can be checked: " + status_name(m.status) + ": " + m.message +
                          also);
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
                      "fill (initialised), limit the check to a region, or check: none" +
                      also);
    }
  }
  if (m.status == Status::kOk && !misused.empty()) {
    m.message = "the baseline (" + baseline.variant.config + ") " + misused;
  } else {
    m.message += also;
  }
  if (check_outputs_) load_device_check();
  has_reference_ = true;
  return m;
}

// Each buffer's bytes for misused_arguments: inputs as the device holds them; outputs, before a
// run, as they are when the kernel writes none of them, after it as it left them.
std::vector<std::vector<unsigned char>> GpuRunner::argument_contents(bool before) const {
  std::vector<std::vector<unsigned char>> out(host_.size());
  for (size_t i = 0; i < host_.size(); ++i) {
    const HostBuffer& host = host_[i];
    if (host.constant || host.scratch) continue;
    if (host.output && before) {
      out[i] = untouched_output(host);
    } else if (!host.output || !untouched_output(host).empty()) {
      out[i].resize(state_->buffers[i].bytes());
      state_->buffers[i].download(out[i].data());
    }
  }
  return out;
}

std::vector<Measurement> GpuRunner::run(const std::vector<Candidate>& batch) {
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

void GpuRunner::setup_device() {
  state_ = std::make_unique<GpuDeviceState>();
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

void GpuRunner::compute_reference_outputs(const Variant& baseline) {
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
    throw Error(ErrorCode::kSpec, who + " is not in its module: " + cuda::cuda_error_name(result));
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
                  who + " left " + std::to_string(unwritten) + " elements of '" + host.shape.name +
                      "'" + (host.region.is_whole() ? "" : " in its check region") +
                      " NaN (unwritten after poisoning?), so nothing can be checked against "
                      "it; expected it to write every checked element, else give the output "
                      "a fill (initialised) or limit the check to a region");
    }
  }
}

void GpuRunner::load_device_check() {
  state_->references.clear();
  for (const HostBuffer& host : host_) {
    state_->references.emplace_back();
    if (!host.output || host.data.empty()) continue;
    state_->references.back() = cuda::DeviceBuffer(host.data.size());
    state_->references.back().upload(host.data.data());
  }
  state_->check = std::make_unique<DeviceOutputCheck>(checkers_);
}

bool GpuRunner::matches_on_device(size_t i) {
  const HostBuffer& host = host_[i];
  if (i >= state_->references.size() ||
      state_->references[i].bytes() != state_->buffers[i].bytes()) {
    return false;
  }
  return state_->check->matches(host.shape.type, state_->buffers[i], state_->references[i],
                                host.region, rtol_, atol_, device_.sm_count, state_->stream);
}

void GpuRunner::recover(const Measurement& failed) {
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

Measurement GpuRunner::measure(const Candidate& candidate, bool is_reference) {
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

void GpuRunner::evaluate(const Candidate& candidate, bool is_reference, Measurement* m) {
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

  restore_changed_inputs();
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

void GpuRunner::keep_checked_outputs() {
  for (size_t i = 0; i < host_.size(); ++i) {
    if (!host_[i].output) continue;
    std::vector<unsigned char>& bytes = checked_outputs_.emplace_back(state_->buffers[i].bytes());
    state_->buffers[i].download(bytes.data());
  }
}

void GpuRunner::restore_changed_inputs() {
  for (size_t i : changed_inputs_) {
    const HostBuffer& host = host_[i];
    if (host.device_fill) {
      state_->fill->fill(arguments_[host.argument], state_->buffers[i], device_.sm_count,
                         state_->stream);
    } else {
      state_->buffers[i].upload(host.input.data());
    }
  }
}

void GpuRunner::prepare_outputs(bool poison) {
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

TimedSamples GpuRunner::time(Prepared& prepared, const RaceLimit& race, double* busy_ms) {
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
