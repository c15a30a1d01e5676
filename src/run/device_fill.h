#pragma once
// Fills buffers on the GPU with the compiled input fillers (compile/input_filler.h): the same
// values host_fill gives, without the host's time or a copy over the bus.
#include <map>
#include <utility>

#include "compile/input_filler.h"
#include "gputune/spec.h"
#include "run/cuda_driver.h"

namespace gputune {

// The fillers loaded in the current context; dropped and loaded again with it.
class DeviceFill {
 public:
  // Throws Error naming the filler when one does not load.
  explicit DeviceFill(const InputFillers& fillers);
  // Whether `argument` can be filled here: filled_on_device and a filler for its type.
  bool can_fill(const ArgumentSpec& argument) const;
  // Queues the fill of `buffer` (bytes() / size of `argument.type` elements) as `argument` says.
  // Throws Error when !can_fill(argument), CudaError when the launch fails.
  void fill(const ArgumentSpec& argument, const cuda::DeviceBuffer& buffer, int sm_count,
            const cuda::Stream& stream) const;

 private:
  std::map<ScalarType, std::pair<cuda::Module, CUfunction>> functions_;
};

}  // namespace gputune
