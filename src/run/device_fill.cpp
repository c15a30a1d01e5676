#include "run/device_fill.h"

#include <algorithm>
#include <cstring>

#include "gputune/error.h"
#include "run/scalar_visit.h"

namespace gputune {

DeviceFill::DeviceFill(const InputFillers& fillers) {
  for (const auto& [type, kernel] : fillers) {
    const std::string name = input_filler_name(type);
    if (!kernel.ok || kernel.lowered_names.size() != 1) {
      throw Error(ErrorCode::kInternal, "the input filler " + name + " was not compiled");
    }
    cuda::Module module;
    CUfunction function = nullptr;
    CUresult result = cuda::Module::load(kernel.image, &module);
    if (result == CUDA_SUCCESS) result = module.function(kernel.lowered_names[0], &function);
    if (result != CUDA_SUCCESS) throw cuda::CudaError(result, "loading the input filler " + name);
    functions_.emplace(type, std::make_pair(std::move(module), function));
  }
}

bool DeviceFill::can_fill(const ArgumentSpec& argument) const {
  return filled_on_device(argument) && functions_.count(argument.type) > 0;
}

void DeviceFill::fill(const ArgumentSpec& argument, const cuda::DeviceBuffer& buffer, int sm_count,
                      const cuda::Stream& stream) const {
  if (!can_fill(argument)) {
    throw Error(ErrorCode::kInternal, "no input filler " + input_filler_name(argument.type) +
                                          " for argument '" + argument.name + "'");
  }
  CUdeviceptr out = buffer.get();
  unsigned long long n = buffer.bytes() / size_of(argument.type);
  int mode = 2;
  if (argument.fill == Fill::kZeros || argument.fill == Fill::kConstant) mode = 0;
  if (argument.fill == Fill::kIota) mode = 1;
  unsigned long long seed = argument.seed;
  double low = argument.fill_low, span = argument.fill_high - argument.fill_low;
  // The constant as the kernel's T parameter: its bytes first in an 8-byte slot.
  uint64_t constant = 0;
  visit_type(argument.type, [&](auto zero) {
    const auto value = argument.fill == Fill::kConstant
                           ? convert<decltype(zero)>(argument.fill_value)
                           : decltype(zero){};
    std::memcpy(&constant, &value, sizeof(value));
    return 0;
  });
  void* params[] = {&out, &n, &mode, &seed, &low, &span, &constant};
  constexpr uint32_t kThreads = 256;
  const uint64_t blocks = std::max<uint64_t>(
      1, std::min<uint64_t>((n + kThreads - 1) / kThreads, uint64_t{32} * std::max(sm_count, 1)));
  const CUfunction function = functions_.at(argument.type).second;
  cuda::check(cuda::launch(function, {static_cast<uint32_t>(blocks), 1, 1}, {kThreads, 1, 1}, 0,
                           stream, params),
              "cuLaunchKernel (input fill)");
}

}  // namespace gputune
