#pragma once
// gputune's own kernel templates (the output checker, the input filler): one source holding
// `template_name<T>`, instantiated and compiled once per scalar type a problem needs.
#include <functional>
#include <map>
#include <string>

#include "compile/compiler.h"
#include "gputune/spec.h"

namespace gputune {

struct BuiltinKernel {
  const char* source;
  const char* source_name;    // the file name NVRTC reports, e.g. "gputune_check.cu"
  const char* template_name;  // e.g. "gputune_check"
  const char* what;           // named in errors, e.g. "output checker"
};

// "template_name<float>"
std::string builtin_kernel_name(const BuiltinKernel& kernel, ScalarType type);
CompileRequest builtin_kernel_request(const BuiltinKernel& kernel, ScalarType type,
                                      const std::string& arch);
// One instantiation per type of the arguments `wanted` selects. One that does not compile is an
// Error naming it.
std::map<ScalarType, CompiledKernel> compile_builtin_per_type(
    const BuiltinKernel& kernel, const Spec& spec, Compiler& compiler, const std::string& arch,
    const std::function<bool(const ArgumentSpec&)>& wanted);

}  // namespace gputune
