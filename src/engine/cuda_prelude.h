#pragma once
#include <string>

namespace gputune::engine {

// Declarations of what NVRTC gives every kernel without an include: the CUDA keywords, the
// built-in variables (threadIdx, blockIdx, blockDim, gridDim, warpSize), vector types and the
// device functions kernels commonly call (math, atomics, barriers, warp functions). Clang parses
// a kernel after it (-include), in CUDA device mode, without any CUDA or system header.
const std::string& cuda_prelude();

// The name the prelude is included under; diagnostics in it are the engine's fault, not the
// user's.
inline const char* cuda_prelude_name() { return "gputune_engine_prelude.h"; }

}  // namespace gputune::engine
