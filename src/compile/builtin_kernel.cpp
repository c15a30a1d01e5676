#include "compile/builtin_kernel.h"

#include "compile/device_type_name.h"
#include "gputune/error.h"

namespace gputune {

std::string builtin_kernel_name(const BuiltinKernel& kernel, ScalarType type) {
  return std::string(kernel.template_name) + "<" + device_type_name(type) + ">";
}

CompileRequest builtin_kernel_request(const BuiltinKernel& kernel, ScalarType type,
                                      const std::string& arch) {
  CompileRequest request;
  request.source = kernel.source;
  request.source_name = kernel.source_name;
  request.kernel_name_expressions = {builtin_kernel_name(kernel, type)};
  request.arch = arch;
  return request;
}

std::map<ScalarType, CompiledKernel> compile_builtin_per_type(
    const BuiltinKernel& kernel, const Spec& spec, Compiler& compiler, const std::string& arch,
    const std::function<bool(const ArgumentSpec&)>& wanted) {
  std::map<ScalarType, CompiledKernel> compiled;
  for (const ArgumentSpec& argument : spec.arguments) {
    if (!wanted(argument) || compiled.count(argument.type)) continue;
    CompiledKernel instance = compiler.compile(builtin_kernel_request(kernel, argument.type, arch));
    if (!instance.ok || instance.lowered_names.size() != 1) {
      throw Error(ErrorCode::kNvrtc, std::string("the ") + kernel.what + " " +
                                         builtin_kernel_name(kernel, argument.type) +
                                         " does not compile for " + arch + ": " + instance.log);
    }
    compiled.emplace(argument.type, std::move(instance));
  }
  return compiled;
}

}  // namespace gputune
