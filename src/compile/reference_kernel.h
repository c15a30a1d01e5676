#pragma once
// The reference kernel a spec may check against (`check: {reference: {kernel: ...}}`). Like the
// output checker, it is compiled on the compile side and handed to the GPU runner, which runs
// it once per workload to compute the expected outputs.
#include <optional>
#include <string>

#include "compile/compiler.h"
#include "space/problem.h"

namespace gputune {

struct ReferenceKernel {
  ReferenceLaunch launch;  // how to launch it, and its name for messages
  CompiledKernel kernel;   // one lowered name
};

CompileRequest reference_kernel_request(const Problem& problem, const std::string& arch);

// Absent where the spec has no reference kernel. Throws Error(kSpec) naming the reference
// kernel, with the compiler's first error line and its log, when it does not compile.
std::optional<ReferenceKernel> compile_reference_kernel(const Problem& problem, Compiler& compiler,
                                                        const std::string& arch);

}  // namespace gputune
