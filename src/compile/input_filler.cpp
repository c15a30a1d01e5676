#include "compile/input_filler.h"

#include "compile/builtin_kernel.h"

namespace gputune {
namespace {

// The generator of run/parallel_fill.cpp (SplitMix64 by index) and the arithmetic of host_fill.
// __dmul_rn and __dadd_rn keep the compiler from contracting low + span * u into an FMA, whose
// single rounding would differ from the host's two.
constexpr char kFillSource[] = R"(
__device__ unsigned long long gputune_random_bits(unsigned long long seed,
                                                  unsigned long long index) {
  unsigned long long z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <typename T>
__device__ T gputune_from_double(double value) { return static_cast<T>(floor(value)); }
template <>
__device__ float gputune_from_double<float>(double value) { return static_cast<float>(value); }
template <>
__device__ double gputune_from_double<double>(double value) { return value; }

// mode 0: constant; 1: the element's index; 2: uniform in [low, low + span).
template <typename T>
__global__ void gputune_fill(T* out, unsigned long long n, int mode, unsigned long long seed,
                             double low, double span, T constant) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x +
                              threadIdx.x; i < n; i += stride) {
    if (mode == 0) {
      out[i] = constant;
    } else if (mode == 1) {
      out[i] = static_cast<T>(i);
    } else {
      const double unit = static_cast<double>(gputune_random_bits(seed, i) >> 11) * 0x1.0p-53;
      out[i] = gputune_from_double<T>(__dadd_rn(low, __dmul_rn(span, unit)));
    }
  }
}
)";

constexpr BuiltinKernel kFiller{kFillSource, "gputune_fill.cu", "gputune_fill", "input filler"};

}  // namespace

std::string input_filler_name(ScalarType type) { return builtin_kernel_name(kFiller, type); }

CompileRequest input_filler_request(ScalarType type, const std::string& arch) {
  return builtin_kernel_request(kFiller, type, arch);
}

bool filled_on_device(const ArgumentSpec& argument) {
  if (!argument.is_buffer || argument.constant || argument.scratch) return false;
  if (argument.output && !argument.initialised) return false;
  return argument.fill != Fill::kData && argument.fill != Fill::kGenerator;
}

InputFillers compile_input_fillers(const Spec& spec, Compiler& compiler, const std::string& arch) {
  return compile_builtin_per_type(kFiller, spec, compiler, arch, filled_on_device);
}

}  // namespace gputune
