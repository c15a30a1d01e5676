#pragma once
// The kernel that checks a variant's outputs on the GPU. It is compiled like a variant (by the
// Compiler or CompilePool, through the module cache) and handed to the GPU runner, which never
// compiles anything itself.
#include <map>
#include <string>

#include "compile/compiler.h"
#include "gputune/spec.h"

namespace gputune {

// Compiled checkers by the element type of the outputs they check.
using OutputCheckers = std::map<ScalarType, CompiledKernel>;

// "gputune_check<float>": the kernel that counts the elements of one output that fail
// |got - expected| <= atol + rtol |expected| (equal passes, NaN never does).
std::string output_checker_name(ScalarType type);
CompileRequest output_checker_request(ScalarType type, const std::string& arch);

// One checker per element type of `spec`'s outputs; none under `check: none`. Throws Error(kNvrtc)
// naming the checker and quoting the compiler's log when one does not compile.
OutputCheckers compile_output_checkers(const Spec& spec, Compiler& compiler,
                                       const std::string& arch);

}  // namespace gputune
