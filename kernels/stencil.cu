// 2-D 5-point stencil on an ny x nx row-major float32 grid; any nx, ny. Points outside the
// grid read as 0:
//   out[i][j] = c0 * in[i][j] + c1 * (in[i-1][j] + in[i+1][j] + in[i][j-1] + in[i][j+1])
// Parameters (macros):
//   BX, BY    block size; a block computes a BX x (BY * MERGE_Y) tile
//   MERGE_Y   points each thread computes down a column (thread merge): the vertical
//             neighbours are reused from registers, so each row is loaded once per thread
//   SHARED    1: stage the tile and its one-point halo in shared memory, compute from there;
//             0: read neighbours from global memory (L1 catches the reuse)
//   PAD       extra columns in the shared tile (SHARED == 1)
//   PREFETCH  1: load the next row's values before computing the current one (a register
//             stage), so loads overlap arithmetic; 0: load, then compute (SHARED == 0)
//   VEC       columns per thread, loaded and stored as float/float2/float4 where rows are
//             aligned (nx % VEC == 0), element by element otherwise (SHARED == 0)
// Launch: block [BX, BY], grid [ceil(nx / (BX * VEC)), ceil(ny / (BY * MERGE_Y))].
#include "gputune.cuh"

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
#ifndef MERGE_Y
#define MERGE_Y 1
#endif
#ifndef SHARED
#define SHARED 0
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef VEC
#define VEC 1
#endif

#define TILE_Y (BY * MERGE_Y)

__device__ __forceinline__ float at(const float* __restrict__ in, int nx, int ny, long long i,
                                    long long j) {
  return i >= 0 && i < ny && j >= 0 && j < nx ? __ldg(in + i * nx + j) : 0.0f;
}

// Columns j .. j+VEC-1 of row i (zero outside the grid).
__device__ __forceinline__ void load_row(float (&v)[VEC], const float* __restrict__ in, int nx,
                                         int ny, long long i, long long j, bool vec_ok) {
  if (i >= 0 && i < ny) {
    gputune::load_guarded<VEC>(in + i * nx, j, nx, vec_ok, v);
  } else {
#pragma unroll
    for (int q = 0; q < VEC; ++q) v[q] = 0.0f;
  }
}

extern "C" __global__ void
    stencil5(float* __restrict__ out, const float* __restrict__ in, int nx, int ny, float c0,
             float c1) {
  const long long j = static_cast<long long>(blockIdx.x) * BX + threadIdx.x;
  const long long tile_i = static_cast<long long>(blockIdx.y) * TILE_Y;
#if SHARED
  GPUTUNE_SHARED_TILE(float, s, TILE_Y + 2, BX + 2, PAD);
  const long long j0 = static_cast<long long>(blockIdx.x) * BX - 1;
  const int tid = threadIdx.x + threadIdx.y * BX;
  for (int e = tid; e < (TILE_Y + 2) * (BX + 2); e += BX * BY) {
    const int r = e / (BX + 2), c = e % (BX + 2);
    s[r][c] = at(in, nx, ny, tile_i - 1 + r, j0 + c);
  }
  __syncthreads();
  const int c = threadIdx.x + 1;
#pragma unroll
  for (int m = 0; m < MERGE_Y; ++m) {
    const int r = threadIdx.y * MERGE_Y + m + 1;
    const long long i = tile_i + r - 1;
    if (i < ny && j < nx) {
      out[i * nx + j] =
          c0 * s[r][c] + c1 * (s[r - 1][c] + s[r + 1][c] + s[r][c - 1] + s[r][c + 1]);
    }
  }
#else
  // Each thread owns VEC consecutive columns and a contiguous run of MERGE_Y rows: the rows
  // above and below slide down the run in registers, so each row is loaded once per thread.
  const long long jv = j * VEC;
  const bool vec_ok = nx % VEC == 0;
  float up[VEC], mid[VEC], down[VEC];
  const long long i0 = tile_i + threadIdx.y * MERGE_Y;
  load_row(up, in, nx, ny, i0 - 1, jv, vec_ok);
  load_row(mid, in, nx, ny, i0, jv, vec_ok);
  load_row(down, in, nx, ny, i0 + 1, jv, vec_ok);
  float left = at(in, nx, ny, i0, jv - 1), right = at(in, nx, ny, i0, jv + VEC);
#pragma unroll
  for (int m = 0; m < MERGE_Y; ++m) {
    const long long i = i0 + m;
    float next[VEC], next_left = 0.0f, next_right = 0.0f;
#if PREFETCH
    // The next row's loads are issued before this row's arithmetic.
    if (m + 1 < MERGE_Y) {
      load_row(next, in, nx, ny, i + 2, jv, vec_ok);
      next_left = at(in, nx, ny, i + 1, jv - 1);
      next_right = at(in, nx, ny, i + 1, jv + VEC);
    }
#endif
    float o[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
      const float l = q == 0 ? left : mid[q - 1];
      const float r = q == VEC - 1 ? right : mid[q + 1];
      o[q] = c0 * mid[q] + c1 * (up[q] + down[q] + l + r);
    }
    if (i < ny) gputune::store_guarded<VEC>(out + i * nx, jv, nx, vec_ok, o);
    if (m + 1 < MERGE_Y) {
#if !PREFETCH
      load_row(next, in, nx, ny, i + 2, jv, vec_ok);
      next_left = at(in, nx, ny, i + 1, jv - 1);
      next_right = at(in, nx, ny, i + 1, jv + VEC);
#endif
#pragma unroll
      for (int q = 0; q < VEC; ++q) {
        up[q] = mid[q];
        mid[q] = down[q];
        down[q] = next[q];
      }
      left = next_left;
      right = next_right;
    }
  }
#endif
}
