// Sum of squares of n float32 values in two stages of one kernel: each block reduces a
// contiguous chunk of CHUNK elements (vector loads of VEC floats, ACC accumulators per thread)
// into partials[block]; the last block to finish (a ticket counter) sums the partials in a fixed
// order and writes out[0], then resets the ticket for the next launch.
// Tuned: BLOCK, VEC, CHUNK (so the grid), ACC independent accumulators.
extern "C" __global__ void reduce_two_stage(float* out, const float* x, float* partials,
                                            unsigned int* ticket, long long n) {
  __shared__ float warp_sums[BLOCK / 32];
  __shared__ bool last;
  const long long begin = static_cast<long long>(blockIdx.x) * CHUNK;
  const long long end = begin + CHUNK < n ? begin + CHUNK : n;
  float acc[ACC];
#pragma unroll
  for (int a = 0; a < ACC; ++a) acc[a] = 0.0f;
  long long i = begin + static_cast<long long>(threadIdx.x) * VEC;
#if VEC == 4
  for (; i + 4 * BLOCK * (ACC - 1) + 3 < end; i += 4LL * BLOCK * ACC) {
#pragma unroll
    for (int a = 0; a < ACC; ++a) {
      const float4 v = *reinterpret_cast<const float4*>(x + i + 4LL * BLOCK * a);
      acc[a] += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  }
#elif VEC == 2
  for (; i + 2 * BLOCK * (ACC - 1) + 1 < end; i += 2LL * BLOCK * ACC) {
#pragma unroll
    for (int a = 0; a < ACC; ++a) {
      const float2 v = *reinterpret_cast<const float2*>(x + i + 2LL * BLOCK * a);
      acc[a] += v.x * v.x + v.y * v.y;
    }
  }
#else
  for (; i + BLOCK * (ACC - 1) < end; i += 1LL * BLOCK * ACC) {
#pragma unroll
    for (int a = 0; a < ACC; ++a) {
      const float v = x[i + 1LL * BLOCK * a];
      acc[a] += v * v;
    }
  }
#endif
  // The ragged tail, element by element, strided like the loads above.
  for (long long k = i; k < end; ++k) {
    if ((k - begin) / VEC % BLOCK == threadIdx.x) acc[0] += x[k] * x[k];
  }
  float sum = 0.0f;
#pragma unroll
  for (int a = 0; a < ACC; ++a) sum += acc[a];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block_sum = 0.0f;
    for (int w = 0; w < BLOCK / 32; ++w) block_sum += warp_sums[w];
    partials[blockIdx.x] = block_sum;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // Stage two: the partials in block order, each thread a strided share, then the block's sum.
  __threadfence();
  float total = 0.0f;
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK) {
    total += static_cast<volatile float*>(partials)[b];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    total += __shfl_down_sync(0xffffffffu, total, offset);
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = total;
  __syncthreads();
  if (threadIdx.x == 0) {
    float result = 0.0f;
    for (int w = 0; w < BLOCK / 32; ++w) result += warp_sums[w];
    out[0] = result;
    *ticket = 0;
  }
}
