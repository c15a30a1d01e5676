// out[0] = sum of x[0 .. n-1] (float32), any n.
// One launch: each block sums a grid-strided share into partials[blockIdx.x]; the last block to
// finish (an atomic ticket) adds the partials in index order and writes out[0], then the ticket
// counter is back at 0 for the next launch. The result is deterministic for a given config, and
// configs differ only by float rounding order (check with a relative tolerance).
// Parameters (macros):
//   BLOCK    threads per block
//   EPT      vectors each thread loads per grid-stride step (thread merge: independent loads
//            in flight)
//   VEC      elements per load: 1, 2, 4 (float, float2, float4)
//   UNROLL   unroll depth of the grid-stride loop
//   SHUFFLE  1: the last 32 partial sums of a block are added with warp shuffles; 0: shared
//            memory tree all the way down (the textbook version)
// Launch: block [BLOCK], grid [min(ceil(n / (BLOCK * EPT * VEC)), cap)]; partials holds at
// least gridDim.x floats; ticket is one zeroed unsigned int.
#include "gputune.cuh"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef EPT
#define EPT 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef SHUFFLE
#define SHUFFLE 0
#endif

// Sum of v over the block, valid in thread 0. `s` holds BLOCK floats.
__device__ __forceinline__ float block_sum(float v, float* s) {
  const int t = threadIdx.x;
#if SHUFFLE
  v = gputune::warp_sum(v);
  if (BLOCK == 32) return v;
  if ((t & 31) == 0) s[t >> 5] = v;
  __syncthreads();
  if (t < 32) {
    v = t < BLOCK / 32 ? s[t] : 0.0f;
    v = gputune::warp_sum(v);
  }
  return v;
#else
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  return s[0];
#endif
}

extern "C" __global__ void
    reduce_sum(float* __restrict__ out, const float* __restrict__ x, float* __restrict__ partials,
               unsigned int* __restrict__ ticket, long long n) {
  __shared__ float s[BLOCK];
  __shared__ bool last;
  const long long vectors = n / VEC;
  const long long step = static_cast<long long>(gridDim.x) * BLOCK * EPT;
  float acc[EPT];
#pragma unroll
  for (int e = 0; e < EPT; ++e) acc[e] = 0.0f;
  const long long first = static_cast<long long>(blockIdx.x) * BLOCK * EPT + threadIdx.x;
  GPUTUNE_UNROLL(UNROLL)
  for (long long base = first; base < vectors; base += step) {
    float v[EPT][VEC];
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
      const long long i = base + e * BLOCK;
      if (i < vectors) {
        gputune::load_vec<VEC>(x, i * VEC, v[e]);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) v[e][k] = 0.0f;
      }
    }
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
#pragma unroll
      for (int k = 0; k < VEC; ++k) acc[e] += v[e][k];
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int e = 0; e < EPT; ++e) sum += acc[e];
  // The n % VEC elements past the last whole vector.
  if (blockIdx.x == 0 && threadIdx.x < n - vectors * VEC) sum += x[vectors * VEC + threadIdx.x];

  sum = block_sum(sum, s);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();  // the partial is visible before the ticket says so
    last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;  // wraps the ticket back to 0
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float total = 0.0f;
  for (unsigned int i = threadIdx.x; i < gridDim.x; i += BLOCK) total += __ldcg(partials + i);
  total = block_sum(total, s);
  if (threadIdx.x == 0) out[0] = total;
}
