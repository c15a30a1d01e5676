#pragma once
// The parameters of a kernel file's __global__ functions, for checking a spec's arguments
// against them (space/signature_check). Nothing here includes Clang.
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gputune::engine {

// A parameter of a kernel as declared.
struct GPUTUNE_ENGINE_API ParameterFact {
  std::string name;
  std::string type;      // as Clang prints it: "const float *"
  bool known = true;     // false: a template parameter's own type, pointer or scalar unknown
  bool pointer = false;  // a pointer (an array parameter is one)
  bool const_pointee = false;
  // The element (what a pointer points to, else the type itself), canonical, as a spec names
  // its types: "float32", "int32", "uint64", ...; "" where no spec type is it (a struct, a
  // half, a type that depends on a template parameter).
  std::string element;
};

// A __global__ function of the kernel file with its parameters (a template's pattern).
struct GPUTUNE_ENGINE_API KernelSignature {
  std::string name;
  SourcePlace place;
  bool templated = false;
  std::vector<ParameterFact> parameters;
};

// The __global__ functions of a kernel file, as parsed at one set of macros.
// A file with errors still gives the kernels whose declarations are valid (an error inside a
// body, such as an intrinsic the engine's prelude lacks, leaves the parameters as declared).
struct GPUTUNE_ENGINE_API Signatures {
  bool parsed = false;      // without any error
  std::string diagnostics;  // Clang's first error, "file:line:column: error: ..."
  std::vector<KernelSignature> kernels;  // those whose declaration has no error
};

// Every __global__ function defined in the unit's file, whatever kernels the unit names, from the
// engine's parse of the unit (SourceEngine::parse), which analyse and rewrite share.
GPUTUNE_ENGINE_API Signatures kernel_signatures(const KernelUnit& unit);

}  // namespace gputune::engine
