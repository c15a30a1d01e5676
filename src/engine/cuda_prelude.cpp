#include "engine/cuda_prelude.h"

namespace gputune::engine {
namespace {

// Written for the engine from the CUDA programming guide's lists; a declaration is enough,
// since Clang only parses. Overloads follow NVRTC's (float and double math, the integer and
// floating atomics).
constexpr const char* kKeywords = R"(
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 900
#define NULL 0
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
)";

constexpr const char* kBuiltins = R"(
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1)
      : x(x), y(y), z(z) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
)";

constexpr const char* kVectorTypes = R"(
#define GPUTUNE_VECTOR_TYPES(T, N)                                               \
  struct __attribute__((aligned(sizeof(T) * 2))) N##2 { T x, y; };             \
  struct N##3 { T x, y, z; };                                                    \
  struct __attribute__((aligned(sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4))) N##4 { \
    T x, y, z, w;                                                                \
  };                                                                             \
  struct N##1 { T x; };                                                          \
  __host__ __device__ N##1 make_##N##1(T x);                                     \
  __host__ __device__ N##2 make_##N##2(T x, T y);                                \
  __host__ __device__ N##3 make_##N##3(T x, T y, T z);                           \
  __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w);
GPUTUNE_VECTOR_TYPES(char, char)
GPUTUNE_VECTOR_TYPES(unsigned char, uchar)
GPUTUNE_VECTOR_TYPES(short, short)
GPUTUNE_VECTOR_TYPES(unsigned short, ushort)
GPUTUNE_VECTOR_TYPES(int, int)
GPUTUNE_VECTOR_TYPES(unsigned int, uint)
GPUTUNE_VECTOR_TYPES(long long, longlong)
GPUTUNE_VECTOR_TYPES(unsigned long long, ulonglong)
GPUTUNE_VECTOR_TYPES(float, float)
GPUTUNE_VECTOR_TYPES(double, double)
#undef GPUTUNE_VECTOR_TYPES
)";

constexpr const char* kFunctions = R"(
#define GPUTUNE_MATH1(name) __device__ float name##f(float); __device__ double name(double);
#define GPUTUNE_MATH2(name) \
  __device__ float name##f(float, float); __device__ double name(double, double);
GPUTUNE_MATH1(sqrt) GPUTUNE_MATH1(rsqrt) GPUTUNE_MATH1(cbrt) GPUTUNE_MATH1(rcbrt)
GPUTUNE_MATH1(exp) GPUTUNE_MATH1(exp2) GPUTUNE_MATH1(exp10) GPUTUNE_MATH1(expm1)
GPUTUNE_MATH1(log) GPUTUNE_MATH1(log2) GPUTUNE_MATH1(log10) GPUTUNE_MATH1(log1p)
GPUTUNE_MATH1(sin) GPUTUNE_MATH1(cos) GPUTUNE_MATH1(tan) GPUTUNE_MATH1(asin)
GPUTUNE_MATH1(acos) GPUTUNE_MATH1(atan) GPUTUNE_MATH1(sinh) GPUTUNE_MATH1(cosh)
GPUTUNE_MATH1(tanh) GPUTUNE_MATH1(asinh) GPUTUNE_MATH1(acosh) GPUTUNE_MATH1(atanh)
GPUTUNE_MATH1(sinpi) GPUTUNE_MATH1(cospi) GPUTUNE_MATH1(erf) GPUTUNE_MATH1(erfc)
GPUTUNE_MATH1(lgamma) GPUTUNE_MATH1(tgamma) GPUTUNE_MATH1(fabs) GPUTUNE_MATH1(floor)
GPUTUNE_MATH1(ceil) GPUTUNE_MATH1(trunc) GPUTUNE_MATH1(round) GPUTUNE_MATH1(rint)
GPUTUNE_MATH1(nearbyint) GPUTUNE_MATH1(logb)
GPUTUNE_MATH2(pow) GPUTUNE_MATH2(fmin) GPUTUNE_MATH2(fmax) GPUTUNE_MATH2(fmod)
GPUTUNE_MATH2(atan2) GPUTUNE_MATH2(hypot) GPUTUNE_MATH2(copysign) GPUTUNE_MATH2(fdim)
GPUTUNE_MATH2(remainder) GPUTUNE_MATH2(nextafter)
#undef GPUTUNE_MATH1
#undef GPUTUNE_MATH2
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
__device__ void sincosf(float, float*, float*);
__device__ void sincos(double, double*, double*);
__device__ float powif(float, int);
__device__ float __expf(float); __device__ float __logf(float); __device__ float __powf(float, float);
__device__ float __sinf(float); __device__ float __cosf(float); __device__ float __tanf(float);
__device__ float __fdividef(float, float); __device__ float __frsqrt_rn(float);
__device__ float __fsqrt_rn(float); __device__ float __fmaf_rn(float, float, float);
__device__ float __fadd_rn(float, float); __device__ float __fmul_rn(float, float);
__device__ float __saturatef(float);
__device__ int abs(int); __device__ long long llabs(long long);
__device__ int min(int, int); __device__ unsigned int min(unsigned int, unsigned int);
__device__ long long min(long long, long long); __device__ float min(float, float);
__device__ double min(double, double);
__device__ int max(int, int); __device__ unsigned int max(unsigned int, unsigned int);
__device__ long long max(long long, long long); __device__ float max(float, float);
__device__ double max(double, double);
__device__ int umin(unsigned int, unsigned int); __device__ int umax(unsigned int, unsigned int);
__device__ int __mul24(int, int); __device__ unsigned int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int); __device__ int __popc(unsigned int);
__device__ int __clz(int); __device__ int __ffs(int); __device__ unsigned int __brev(unsigned int);
__device__ int __float2int_rn(float); __device__ int __float2int_rz(float);
__device__ float __int2float_rn(int); __device__ float __uint2float_rn(unsigned int);
__device__ int __float_as_int(float); __device__ float __int_as_float(int);
__device__ unsigned int __float_as_uint(float); __device__ float __uint_as_float(unsigned int);
__device__ long long __double_as_longlong(double); __device__ double __longlong_as_double(long long);

__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int, int);
__device__ int __all_sync(unsigned int, int);
__device__ int __any_sync(unsigned int, int);
#define GPUTUNE_SHFL(T)                                                       \
  __device__ T __shfl_sync(unsigned int, T, int, int width = 32);            \
  __device__ T __shfl_up_sync(unsigned int, T, unsigned int, int width = 32); \
  __device__ T __shfl_down_sync(unsigned int, T, unsigned int, int width = 32); \
  __device__ T __shfl_xor_sync(unsigned int, T, int, int width = 32);
GPUTUNE_SHFL(int) GPUTUNE_SHFL(unsigned int) GPUTUNE_SHFL(long long)
GPUTUNE_SHFL(unsigned long long) GPUTUNE_SHFL(float) GPUTUNE_SHFL(double)
#undef GPUTUNE_SHFL
#define GPUTUNE_ATOMIC(T)                                                    \
  __device__ T atomicAdd(T*, T); __device__ T atomicSub(T*, T);             \
  __device__ T atomicExch(T*, T); __device__ T atomicMin(T*, T);            \
  __device__ T atomicMax(T*, T); __device__ T atomicCAS(T*, T, T);          \
  __device__ T atomicAnd(T*, T); __device__ T atomicOr(T*, T);              \
  __device__ T atomicXor(T*, T); __device__ T atomicInc(T*, T);             \
  __device__ T atomicDec(T*, T);
GPUTUNE_ATOMIC(int) GPUTUNE_ATOMIC(unsigned int) GPUTUNE_ATOMIC(unsigned long long)
GPUTUNE_ATOMIC(long long)
#undef GPUTUNE_ATOMIC
__device__ float atomicAdd(float*, float); __device__ double atomicAdd(double*, double);
__device__ float atomicExch(float*, float);
__device__ float atomicMin(float*, float); __device__ float atomicMax(float*, float);
#define GPUTUNE_LDG(T) __device__ T __ldg(const T*);
GPUTUNE_LDG(char) GPUTUNE_LDG(int) GPUTUNE_LDG(unsigned int) GPUTUNE_LDG(long long)
GPUTUNE_LDG(unsigned long long) GPUTUNE_LDG(float) GPUTUNE_LDG(double) GPUTUNE_LDG(float2)
GPUTUNE_LDG(float4) GPUTUNE_LDG(int2) GPUTUNE_LDG(int4) GPUTUNE_LDG(double2)
#undef GPUTUNE_LDG
__device__ long long clock64();
__device__ long long clock();
__device__ int printf(const char*, ...);
__device__ void __trap();
__device__ void __brkpt();
__device__ void* memcpy(void*, const void*, size_t);
__device__ void* memset(void*, int, size_t);
)";

}  // namespace

const std::string& cuda_prelude() {
  static const std::string text =
      std::string(kKeywords) + kVectorTypes + kBuiltins + kFunctions;
  return text;
}

}  // namespace gputune::engine
