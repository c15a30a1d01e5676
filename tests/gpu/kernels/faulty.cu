// out = 2 * in, with a planted fault chosen by FAULT:
//   0 none, 1 skips the last element, 2 writes a wrong value in the middle,
//   3 writes far outside every allocation (an illegal address, a sticky error).
#ifndef FAULT
#define FAULT 0
#endif

extern "C" __global__ void faulty(float* out, const float* in, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if FAULT == 1
  if (i == n - 1) return;
#endif
  float value = 2.0f * in[i];
#if FAULT == 2
  if (i == n / 2) value += 1.0f;
#endif
#if FAULT == 3
  if (i == 0) out[1LL << 40] = value;
#endif
  out[i] = value;
}
