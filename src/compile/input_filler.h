#pragma once
// The kernel that fills inputs (and initialised outputs) on the GPU, so that a worker neither
// fills gigabytes on the host nor copies them over. It is compiled like a variant (through the
// Compiler or CompilePool and the module cache) and handed to the GPU runner, which compiles
// nothing itself. Its values are those of host_fill (run/host_buffers.h), bit for bit.
#include <map>
#include <string>

#include "compile/compiler.h"
#include "gputune/spec.h"

namespace gputune {

// Compiled fillers by the element type of the buffers they fill.
using InputFillers = std::map<ScalarType, CompiledKernel>;

// "gputune_fill<float>": writes element i of a buffer as host_fill would: a constant, i, or
// low + (high - low) * random_unit(seed, i) (floored for integer types).
std::string input_filler_name(ScalarType type);
CompileRequest input_filler_request(ScalarType type, const std::string& arch);

// Whether the GPU fills `argument` (a buffer filled by a generator, not given data, and no
// __constant__ symbol, which is small and copied from the host into each module).
bool filled_on_device(const ArgumentSpec& argument);

// One filler per element type of `spec`'s arguments that filled_on_device. Throws Error(kNvrtc)
// naming the filler and quoting the compiler's log when one does not compile.
InputFillers compile_input_fillers(const Spec& spec, Compiler& compiler, const std::string& arch);

}  // namespace gputune
