#pragma once
#include <memory>
#include <string>
#include <vector>

namespace gputune {

struct CompileRequest {
  std::string source;        // prelude + kernel source
  std::string source_name;   // file name shown in compiler messages
  std::string headers_hash;  // of what the source includes: another is another module
  // The kernels to look up in the module: "transpose" or "transpose<32, 1>"; at least one.
  std::vector<std::string> kernel_name_expressions;
  std::vector<std::string> options;  // NVRTC options besides the architecture
  // A real architecture ("sm_90") gives a cubin; a virtual one ("compute_90") gives PTX.
  std::string arch = "sm_90";
  // Why this variant cannot be compiled at all (the transformation engine refused to rewrite
  // it, space/problem.h Variant::refusal): every compiler answers a failure with this as its
  // log, calls NVRTC for nothing and caches nothing.
  std::string refusal;
};

struct CompiledKernel {
  bool ok = false;
  std::string log;                         // compiler output, errors and warnings
  std::string image;                       // cubin
  std::vector<std::string> lowered_names;  // the symbols, parallel to the name expressions
  // From ptxas; with several kernels the most registers and shared memory any of them uses,
  // and the spills of all of them.
  int registers = 0, shared_bytes = 0, spill_bytes = 0;
  double compile_ms = 0;
  bool cached = false;  // from the module cache: compile_ms is the original compilation's
};

// The failure a compiler answers for a request with a refusal.
CompiledKernel refused_kernel(const CompileRequest& request);

class Compiler {
 public:
  virtual ~Compiler() = default;
  // A kernel that does not compile is `ok == false` with the log; only misuse throws.
  virtual CompiledKernel compile(const CompileRequest& request) = 0;
};

std::unique_ptr<Compiler> make_nvrtc_compiler();
std::string nvrtc_version();                            // "13.0"
bool is_virtual_architecture(const std::string& arch);  // "compute_90": NVRTC writes PTX
// The architectures this build's NVRTC compiles for (nvrtcGetSupportedArchs), as "sm_90".
std::vector<std::string> nvrtc_architectures();
// Throws Error(kUsage) naming `option` ("--arch") and NVRTC's architectures unless `arch` is
// one of them: sm_NN or compute_NN, with an optional a/f suffix ("sm_90a"). Checked before
// anything compiles, so a typo is one message rather than one NVRTC error per variant.
void check_architecture(const std::string& arch, const std::string& option);

}  // namespace gputune
