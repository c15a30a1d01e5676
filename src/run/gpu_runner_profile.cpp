// GpuRunner (gpu_runner.h): a variant's counters (CUPTI's range profiler, for the bottleneck
// strategy) and the GPU's copy bandwidth.
#include "run/gpu_runner.h"

#include <algorithm>

#include "gputune/error.h"
#include "run/launch_counters.h"

namespace gputune {

double GpuRunner::measure_copy_bandwidth() {
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

RangeCounters GpuRunner::profile(const Candidate& candidate,
                                 const std::vector<RangeMetric>& metrics) {
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

}  // namespace gputune
