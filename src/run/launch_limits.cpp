#include "run/launch_limits.h"

#include <cstdint>

namespace gputune {

std::string fit_launch(const cuda::Context& context, CUfunction function, const Launch& launch) {
  auto function_attribute = [&](CUfunction_attribute which) {
    return cuda::function_attribute(function, which);
  };
  const uint64_t threads = uint64_t{launch.block[0]} * launch.block[1] * launch.block[2];
  const int max_threads = function_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (threads > static_cast<uint64_t>(max_threads)) {
    return "a block of " + std::to_string(threads) + " threads exceeds this kernel's limit of " +
           std::to_string(max_threads) + " (" +
           std::to_string(function_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)) +
           " registers per thread)";
  }
  static const CUdevice_attribute kBlockLimits[] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                                    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  static const CUdevice_attribute kGridLimits[] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  static const char kAxis[] = "xyz";
  for (int d = 0; d < 3; ++d) {
    const int block_limit = context.attribute(kBlockLimits[d]);
    if (launch.block[d] > static_cast<uint32_t>(block_limit)) {
      return std::string("block ") + kAxis[d] + " = " + std::to_string(launch.block[d]) +
             " exceeds the device's " + std::to_string(block_limit);
    }
    const int grid_limit = context.attribute(kGridLimits[d]);
    if (launch.grid[d] > static_cast<uint32_t>(grid_limit)) {
      return std::string("grid ") + kAxis[d] + " = " + std::to_string(launch.grid[d]) +
             " exceeds the device's " + std::to_string(grid_limit);
    }
  }
  const int static_shared = function_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  const int shared_limit = context.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  const int64_t shared = int64_t{static_shared} + launch.dynamic_shared_bytes;
  if (shared > shared_limit) {
    return std::to_string(shared) + " bytes of shared memory (" + std::to_string(static_shared) +
           " static) exceed the device's " + std::to_string(shared_limit) + " per block";
  }
  // Above the default dynamic limit (48 KB less the static part) a kernel must opt in.
  const int default_dynamic = function_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  if (launch.dynamic_shared_bytes > static_cast<uint32_t>(default_dynamic)) {
    const CUresult result =
        cuda::set_function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(launch.dynamic_shared_bytes));
    if (result != CUDA_SUCCESS) {
      return "cannot raise dynamic shared memory to " +
             std::to_string(launch.dynamic_shared_bytes) +
             " bytes: " + cuda::cuda_error_name(result);
    }
  }
  return "";
}

}  // namespace gputune
