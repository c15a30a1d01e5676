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
//             stage), so loads overlap arithmetic; 0: load, then compute
// Launch: block [BX, BY], grid [ceil(nx / BX), ceil(ny / (BY * MERGE_Y))].
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

#define TILE_Y (BY * MERGE_Y)

__device__ __forceinline__ float at(const float* __restrict__ in, int nx, int ny, long long i,
                                    long long j) {
  return i >= 0 && i < ny && j >= 0 && j < nx ? __ldg(in + i * nx + j) : 0.0f;
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
  // Thread rows are contiguous runs of MERGE_Y points: up/mid/down slide down the column.
  const long long i0 = tile_i + threadIdx.y * MERGE_Y;
  float up = at(in, nx, ny, i0 - 1, j);
  float mid = at(in, nx, ny, i0, j);
#if PREFETCH
  float down = at(in, nx, ny, i0 + 1, j);
  float left = at(in, nx, ny, i0, j - 1);
  float right = at(in, nx, ny, i0, j + 1);
#pragma unroll
  for (int m = 0; m < MERGE_Y; ++m) {
    const long long i = i0 + m;
    // The next row's three loads are issued before this row's arithmetic.
    float next_down = 0.0f, next_left = 0.0f, next_right = 0.0f;
    if (m + 1 < MERGE_Y) {
      next_down = at(in, nx, ny, i + 2, j);
      next_left = at(in, nx, ny, i + 1, j - 1);
      next_right = at(in, nx, ny, i + 1, j + 1);
    }
    if (i < ny && j < nx) out[i * nx + j] = c0 * mid + c1 * (up + down + left + right);
    up = mid;
    mid = down;
    down = next_down;
    left = next_left;
    right = next_right;
  }
#else
#pragma unroll
  for (int m = 0; m < MERGE_Y; ++m) {
    const long long i = i0 + m;
    const float down = at(in, nx, ny, i + 1, j);
    const float left = at(in, nx, ny, i, j - 1);
    const float right = at(in, nx, ny, i, j + 1);
    if (i < ny && j < nx) out[i * nx + j] = c0 * mid + c1 * (up + down + left + right);
    up = mid;
    mid = down;
  }
#endif
#endif
}
