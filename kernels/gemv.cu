// y = A x for a row-major m x n float32 matrix A; any m, n.
// Parameters (macros):
//   TPR      threads per row (a power of two <= 32): TPR lanes of one warp share a row and add
//            their partial sums with shuffles. TPR = 1 is the textbook one-thread-per-row kernel,
//            whose loads are strided by n across a warp (uncoalesced)
//   ROWS     thread groups per block; the block is TPR x ROWS threads
//   MERGE    rows each thread group computes (thread merge): each x value loaded serves MERGE
//            rows, and MERGE rows' loads are in flight together
//   VEC      elements per load of A and x: 1, 2, 4 (used where n % VEC == 0, so rows stay
//            aligned; single elements otherwise)
//   UNROLL   unroll depth of the loop along a row
//   SHARED   1: stage a ROWS*MERGE x KT tile of A (and KT values of x) in shared memory with
//            loads that are contiguous across the whole block, then compute from shared memory:
//            the coalescing fix for small TPR. 0: read A and x from global memory directly
//   KT       tile width along a row for SHARED == 1
// Launch: block [TPR, ROWS], grid [ceil(m / (ROWS * MERGE))].
#include "gputune.cuh"

#ifndef TPR
#define TPR 1
#endif
#ifndef ROWS
#define ROWS 128
#endif
#ifndef MERGE
#define MERGE 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef SHARED
#define SHARED 0
#endif
#ifndef KT
#define KT 128
#endif

#define THREADS (TPR * ROWS)
#define BLOCK_ROWS (ROWS * MERGE)

extern "C" __global__ void
    gemv(float* __restrict__ y, const float* __restrict__ a, const float* __restrict__ x, int m,
         int n) {
  const int lane = threadIdx.x;  // within the row group
  const int group = threadIdx.y;
  const long long row0 = static_cast<long long>(blockIdx.x) * BLOCK_ROWS;
  const long long cols = n;
  float acc[MERGE];
#pragma unroll
  for (int r = 0; r < MERGE; ++r) acc[r] = 0.0f;

#if SHARED
  // Row r of the tile is row row0 + r of A; group g computes tile rows g + i * ROWS.
  GPUTUNE_SHARED_TILE(float, tile, BLOCK_ROWS, KT, 1);
  __shared__ float xs[KT];
  const int tid = threadIdx.x + threadIdx.y * TPR;
  for (long long k0 = 0; k0 < cols; k0 += KT) {
    // Consecutive threads read consecutive elements of a tile row: coalesced for any TPR.
    for (int i = tid; i < BLOCK_ROWS * KT; i += THREADS) {
      const int r = i / KT, c = i % KT;
      const long long row = row0 + r, k = k0 + c;
      tile[r][c] = row < m && k < cols ? a[row * cols + k] : 0.0f;
    }
    for (int c = tid; c < KT; c += THREADS) xs[c] = k0 + c < cols ? x[k0 + c] : 0.0f;
    __syncthreads();
    GPUTUNE_UNROLL(UNROLL)
    for (int c = lane; c < KT; c += TPR) {
      const float xv = xs[c];
#pragma unroll
      for (int r = 0; r < MERGE; ++r) acc[r] += tile[group + r * ROWS][c] * xv;
    }
    __syncthreads();
  }
#else
  const bool vec_ok = cols % VEC == 0;
  const long long chunks = vec_ok ? cols / VEC : cols;
  if (vec_ok) {
    GPUTUNE_UNROLL(UNROLL)
    for (long long c = lane; c < chunks; c += TPR) {
      float xv[VEC];
      gputune::load_vec<VEC>(x, c * VEC, xv);
#pragma unroll
      for (int r = 0; r < MERGE; ++r) {
        const long long row = row0 + group + r * ROWS;
        if (row < m) {
          float av[VEC];
          gputune::load_vec<VEC>(a + row * cols, c * VEC, av);
#pragma unroll
          for (int k = 0; k < VEC; ++k) acc[r] += av[k] * xv[k];
        }
      }
    }
  } else {
    GPUTUNE_UNROLL(UNROLL)
    for (long long c = lane; c < chunks; c += TPR) {
      const float xv = x[c];
#pragma unroll
      for (int r = 0; r < MERGE; ++r) {
        const long long row = row0 + group + r * ROWS;
        if (row < m) acc[r] += a[row * cols + c] * xv;
      }
    }
  }
#endif

#pragma unroll
  for (int r = 0; r < MERGE; ++r) {
    const float sum = gputune::group_sum<TPR>(acc[r]);
    const long long row = row0 + group + r * ROWS;
    if (lane == 0 && row < m) y[row] = sum;
  }
}
