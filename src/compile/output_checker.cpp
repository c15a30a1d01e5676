#include "compile/output_checker.h"

#include "compile/builtin_kernel.h"

namespace gputune {
namespace {

// Counts the elements of `got` that fail the check against `expected`, as the host's compare
// does: equal passes, NaN never does, else |got - expected| <= atol + rtol |expected|. Only the
// n elements of a box are compared: a row-major array of (., shape1, shape2) elements, the box
// starting at (begin0, begin1, begin2), height x width elements per plane.
constexpr char kCheckSource[] = R"(
template <typename T>
__global__ void gputune_check(const T* got, const T* expected, unsigned long long n,
                              unsigned long long shape1, unsigned long long shape2,
                              unsigned long long begin0, unsigned long long begin1,
                              unsigned long long begin2, unsigned long long height,
                              unsigned long long width, double rtol, double atol,
                              unsigned long long* mismatches) {
  const bool contiguous = height == 1 && width == n;
  unsigned long long count = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long k = static_cast<unsigned long long>(blockIdx.x) * blockDim.x +
                              threadIdx.x; k < n; k += stride) {
    unsigned long long i = (begin0 * shape1 + begin1) * shape2 + begin2 + k;
    if (!contiguous) {
      const unsigned long long x = k % width, rest = k / width;
      i = ((begin0 + rest / height) * shape1 + begin1 + rest % height) * shape2 + begin2 + x;
    }
    const T g = got[i], e = expected[i];
    if (g == e) continue;
    const double x = static_cast<double>(g), r = static_cast<double>(e);
    if (x != x || r != r || !(fabs(x - r) <= atol + rtol * fabs(r))) ++count;
  }
  if (count != 0) atomicAdd(mismatches, count);
}
)";

constexpr BuiltinKernel kChecker{kCheckSource, "gputune_check.cu", "gputune_check",
                                 "output checker"};

}  // namespace

std::string output_checker_name(ScalarType type) { return builtin_kernel_name(kChecker, type); }

CompileRequest output_checker_request(ScalarType type, const std::string& arch) {
  return builtin_kernel_request(kChecker, type, arch);
}

OutputCheckers compile_output_checkers(const Spec& spec, Compiler& compiler,
                                       const std::string& arch) {
  if (!spec.check_outputs) return {};
  return compile_builtin_per_type(kChecker, spec, compiler, arch,
                                  [](const ArgumentSpec& a) { return a.is_buffer && a.output; });
}

}  // namespace gputune
