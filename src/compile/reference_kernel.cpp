#include "compile/reference_kernel.h"

#include <filesystem>

#include "compile/compiler_log.h"
#include "gputune/error.h"

namespace gputune {

CompileRequest reference_kernel_request(const Problem& problem, const std::string& arch) {
  const ReferenceKernelSpec& spec = *problem.spec().reference_kernel;
  const ReferenceLaunch& launch = *problem.reference_launch();
  CompileRequest request;
  request.source_name = std::filesystem::path(spec.path).filename().string();
  request.source = spec.source;
  request.kernel_name_expressions = {launch.kernel_name_expression};
  request.options = launch.compile_options;
  request.arch = arch;
  return request;
}

std::optional<ReferenceKernel> compile_reference_kernel(const Problem& problem, Compiler& compiler,
                                                        const std::string& arch) {
  if (!problem.reference_launch() || !problem.spec().check_outputs) return std::nullopt;
  ReferenceKernel reference;
  reference.launch = *problem.reference_launch();
  reference.kernel = compiler.compile(reference_kernel_request(problem, arch));
  if (!reference.kernel.ok || reference.kernel.lowered_names.size() != 1) {
    const std::string& log = reference.kernel.log;
    throw Error(ErrorCode::kSpec,
                problem.spec().reference_kernel->where.message(
                    "the " + reference.launch.name + " does not compile for " + arch + ": " +
                    first_error_line(log) +
                    "; expected a kernel that compiles with the reference's options and "
                    "defines\n" +
                    log));
  }
  return reference;
}

}  // namespace gputune
