#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "compile/compiler_log.h"
#include "compile/cubin_symbols.h"
#include "compile/standard_headers.h"
#include "core/text.h"
#include "gputune/error.h"

namespace gputune {
namespace {

void check(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) {
    throw Error(ErrorCode::kNvrtc, std::string(what) + ": " + nvrtcGetErrorString(result));
  }
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
};
using ProgramPtr = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

std::string program_log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Registers as the cubin records them (its shared memory section also holds a reserve the
// report leaves out, and spills are only in the report).
void registers_from_cubin(const std::vector<std::string>& symbols, CompiledKernel* out) {
  for (const std::string& symbol : symbols) {
    out->registers = std::max(out->registers, cubin_registers(out->image, symbol));
  }
}

class NvrtcCompiler : public Compiler {
 public:
  CompiledKernel compile(const CompileRequest& request) override {
    if (!request.refusal.empty()) return refused_kernel(request);
    if (request.kernel_name_expressions.empty()) {
      throw Error(ErrorCode::kUsage, "compile: no kernel name expression");
    }
    CompiledKernel result;
    const auto start = std::chrono::steady_clock::now();

    ProgramPtr program(new nvrtcProgram(nullptr));
    const std::string source_name = request.source_name.empty() ? "kernel.cu" : request.source_name;
    std::vector<const char*> header_sources, header_names;
    for (const StandardHeader& header : standard_headers(request.options)) {
      header_sources.push_back(header.source);
      header_names.push_back(header.name);
    }
    check(nvrtcCreateProgram(program.get(), request.source.c_str(), source_name.c_str(),
                             static_cast<int>(header_sources.size()), header_sources.data(),
                             header_names.data()),
          "nvrtcCreateProgram");
    for (const std::string& name : request.kernel_name_expressions) {
      check(nvrtcAddNameExpression(*program, name.c_str()), "nvrtcAddNameExpression");
    }

    std::vector<std::string> options = {"--gpu-architecture=" + request.arch, "--std=c++17",
                                        "--ptxas-options=-v"};
    options.insert(options.end(), request.options.begin(), request.options.end());
    std::vector<const char*> option_ptrs;
    for (const auto& option : options) option_ptrs.push_back(option.c_str());

    const nvrtcResult compiled =
        nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
    result.log = program_log(*program);
    if (compiled != NVRTC_SUCCESS) {
      if (compiled != NVRTC_ERROR_COMPILATION && compiled != NVRTC_ERROR_INVALID_OPTION) {
        throw Error(ErrorCode::kNvrtc,
                    std::string("nvrtcCompileProgram: ") + nvrtcGetErrorString(compiled));
      }
      if (result.log.empty()) result.log = nvrtcGetErrorString(compiled);
      result.compile_ms = elapsed_ms(start);
      return result;
    }

    for (const std::string& name : request.kernel_name_expressions) {
      const char* lowered = nullptr;
      if (nvrtcGetLoweredName(*program, name.c_str(), &lowered) != NVRTC_SUCCESS ||
          lowered == nullptr) {
        result.log += "\nno kernel named '" + name + "' in the source";
        result.compile_ms = elapsed_ms(start);
        return result;
      }
      result.lowered_names.push_back(lowered);
    }

    if (is_virtual_architecture(request.arch)) {
      // PTX, the forward-compatible form a release embeds: the driver compiles it for whatever
      // GPU loads it. The terminating NUL is kept, as cuModuleLoadData expects.
      size_t ptx_size = 0;
      check(nvrtcGetPTXSize(*program, &ptx_size), "nvrtcGetPTXSize");
      result.image.resize(ptx_size);
      check(nvrtcGetPTX(*program, result.image.data()), "nvrtcGetPTX");
      result.ok = true;
      result.compile_ms = elapsed_ms(start);
      return result;
    }
    size_t cubin_size = 0;
    const nvrtcResult sized = nvrtcGetCUBINSize(*program, &cubin_size);
    if (sized != NVRTC_SUCCESS || cubin_size == 0) {
      result.log += "\nno cubin for --gpu-architecture=" + request.arch +
                    " (a real architecture such as sm_90 is needed, or compute_90 for PTX)";
      result.compile_ms = elapsed_ms(start);
      return result;
    }
    result.image.resize(cubin_size);
    check(nvrtcGetCUBIN(*program, result.image.data()), "nvrtcGetCUBIN");
    const ResourceReport resources = resources_of(result.log, result.lowered_names);
    result.registers = resources.registers;
    result.shared_bytes = resources.shared_bytes;
    result.spill_bytes = resources.spill_bytes;
    // NVRTC may serve a cubin from its own cache without running ptxas, and then the log has no
    // resource report (NVRTC 13.0.88 on the GPU machine): the cubin itself gives the registers.
    if (result.registers == 0) registers_from_cubin(result.lowered_names, &result);
    result.ok = true;
    result.compile_ms = elapsed_ms(start);
    return result;
  }

 private:
  static double elapsed_ms(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }
};

}  // namespace

std::unique_ptr<Compiler> make_nvrtc_compiler() { return std::make_unique<NvrtcCompiler>(); }

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

bool is_virtual_architecture(const std::string& arch) { return arch.rfind("compute_", 0) == 0; }

std::vector<std::string> nvrtc_architectures() {
  int count = 0;
  check(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> numbers(static_cast<size_t>(count));
  if (count > 0) check(nvrtcGetSupportedArchs(numbers.data()), "nvrtcGetSupportedArchs");
  std::vector<std::string> out;
  for (int number : numbers) out.push_back("sm_" + std::to_string(number));
  return out;
}

void check_architecture(const std::string& arch, const std::string& option) {
  const std::vector<std::string> supported = nvrtc_architectures();
  // "sm_90", "compute_90", "sm_90a", "sm_100f": scanned by hand (no std::regex over input,
  // which recurses per character: docs/reliability.md).
  const size_t prefix = arch.rfind("sm_", 0) == 0 ? 3 : arch.rfind("compute_", 0) == 0 ? 8 : 0;
  const size_t digits_end = prefix > 0 ? skip_digits(arch, prefix) : 0;
  const bool shaped =
      digits_end > prefix &&
      (digits_end == arch.size() ||
       (digits_end + 1 == arch.size() && (arch[digits_end] == 'a' || arch[digits_end] == 'f')));
  if (shaped && std::find(supported.begin(), supported.end(),
                          "sm_" + arch.substr(prefix, digits_end - prefix)) != supported.end()) {
    return;
  }
  std::string list;
  for (const std::string& name : supported) list += (list.empty() ? "" : ", ") + name;
  throw Error(ErrorCode::kUsage, option + " " + arch + ": expected an architecture NVRTC " +
                                     nvrtc_version() + " compiles for: " + list +
                                     " (or compute_NN for PTX)");
}

CompiledKernel refused_kernel(const CompileRequest& request) {
  CompiledKernel kernel;
  kernel.log = request.refusal;
  return kernel;
}

}  // namespace gputune
