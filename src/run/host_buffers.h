#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gputune/spec.h"
#include "run/check_region.h"
#include "run/parallel_fill.h"
#include "space/problem.h"

namespace gputune {

// A buffer argument as the runner keeps it on the host: inputs' contents (uploaded again after a
// context reset) or, for outputs, the reference.
struct HostBuffer {
  BufferShape shape;
  bool output = false;
  bool scratch = false;             // passes data between launches: poisoned, never compared
  std::vector<unsigned char> data;  // outputs: the reference
  InputBytes input;                 // inputs and constants: their contents
  bool given_reference = false;     // data is the spec's reference, not the baseline's output
  // Filled like an input but copied into the __constant__ symbol of each loaded module; no
  // device buffer of its own.
  bool constant = false;
  std::string symbol;  // constants: the symbol's name

  // Outputs: what is compared, and the contents an initialised output starts from (empty:
  // it is poisoned instead).
  CheckRegion region;
  InputBytes initial;

  // Filled on the GPU (run/device_fill.h) instead: `input` and `initial` stay empty.
  bool device_fill = false;
  size_t argument = 0;  // its index in the spec's arguments
};

// One per buffer argument of the problem, in order: inputs filled as the spec says, outputs
// holding the spec's reference where it gives one, their check region and initial contents.
// Throws Error(kSpec) for given bytes of the wrong size or a region that does not fit.
// Arguments for which `fills_on_device` holds are left to the GPU (HostBuffer::device_fill).
std::vector<HostBuffer> make_host_buffers(
    const Problem& problem,
    const std::function<bool(const ArgumentSpec&)>& fills_on_device = nullptr);

// Whether every output's expected values are given (the spec's reference, or its reference
// kernel's outputs once computed): then the baseline is judged like any variant, and a baseline
// that fails is a result rather than the end of the search. False where there is no output.
bool every_output_given(const std::vector<HostBuffer>& buffers);

// `count` elements of `type` filled as `argument` says (zeros, constant, iota, random, data, a
// generator of the index), on up to `threads` threads (0: every hardware thread). Random element i
// is low + (high - low) * random_unit(seed, i) (run/parallel_fill.h), floored for integer types:
// the same bytes however many threads fill them.
InputBytes host_fill(const ArgumentSpec& argument, ScalarType type, uint64_t count,
                     unsigned threads = 0);

}  // namespace gputune
