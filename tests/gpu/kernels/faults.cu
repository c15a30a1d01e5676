// The engine's fault corpus: out = 2 * in, or a planted fault chosen by FAULT.
//   0 none                  -> ok
//   1 writes far outside every allocation: an illegal address, sticky -> runtime_error
//   2 never finishes        -> timeout
//   3 asks for more dynamic shared memory than a block may have (see faults.yaml)
//                           -> resource_exceeded
//   4 one wrong value       -> wrong_answer
//   5 one NaN               -> wrong_answer
//   6 does not compile      -> compile_error
#ifndef FAULT
#define FAULT 0
#endif

extern "C" __global__ void faults(float* out, const float* in, int n) {
  extern __shared__ float scratch[];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
#if FAULT == 2
  // clock64() is volatile, so the compiler cannot drop the loop; it counts up for centuries.
  if (i == 0) {
    while (clock64() >= 0) {
    }
  }
#endif
  if (i >= n) return;
  float value = 2.0f * in[i];
#if FAULT == 1
  if (i == 0) out[1LL << 40] = value;
#endif
#if FAULT == 3
  scratch[threadIdx.x] = value;
  __syncthreads();
  value = scratch[threadIdx.x];
#endif
#if FAULT == 4
  if (i == n / 2) value += 1.0f;
#endif
#if FAULT == 5
  if (i == n / 3) value = __int_as_float(0x7fc00000);
#endif
#if FAULT == 6
  this is not CUDA;
#endif
  out[i] = value;
}
