// A chain of 5-point stencil loops, each reading its neighbours' results from the loop before:
// u1 = S(in), u2 = S(u1), ..., out = S(u_{STEPS-1}), where S is stencil.cu's stencil5 (points
// outside the grid read as 0). Two ways to run it are two points of one space:
//   unfused  one stencil5 launch per loop (with all of stencil5's parameters), the
//            intermediates in global memory (the spec's scratch buffers)
//   fused    one launch of stencil5_fused<STEPS>: a block loads its tile and a STEPS-point halo
//            once, runs every loop in shared memory and stores only the last. Each loop's valid
//            region shrinks by a point per side, so the halo is recomputed by neighbouring
//            blocks rather than exchanged; points outside the grid stay 0 in every loop.
// Parameters of the fused kernel (macros):
//   BX, BY    block size; a block computes a BX x (BY * MERGE_Y) tile of `out`
//   MERGE_Y   rows a thread computes down a column in each loop (thread merge): the rows above
//             and below slide through registers
//   PAD       extra columns in the shared tiles
// Launch (fused): block [BX, BY], grid [ceil(nx / BX), ceil(ny / (BY * MERGE_Y))].
#include "stencil.cu"

// Loop s of the chain over the tile: reads src, writes dst (or `out` for the last loop). Loop s
// is valid on the tile less s points per side. Work items are strips of MERGE_Y rows in one
// column; neighbouring threads take neighbouring columns. kInterior: the whole tile and its halo
// lie inside the grid, so no point needs a bounds check.
template <int STEPS, int S, bool kInterior, int kRows, int kCols>
__device__ __forceinline__ void chain_loop(const float (*src)[kCols + PAD],
                                           float (*dst)[kCols + PAD], float* __restrict__ out,
                                           int nx, int ny, long long x0, long long y0, float c0,
                                           float c1) {
  constexpr int kLoopCols = kCols - 2 * S, kLoopRows = kRows - 2 * S;
  constexpr int kStrips = (kLoopRows + MERGE_Y - 1) / MERGE_Y;
  const int tid = threadIdx.y * BX + threadIdx.x;
  for (int item = tid; item < kLoopCols * kStrips; item += BX * BY) {
    const int c = S + item % kLoopCols;
    const int r_begin = S + (item / kLoopCols) * MERGE_Y;
    const long long x = x0 + c;
    const bool x_inside = kInterior || (x >= 0 && x < nx);
    float up = src[r_begin - 1][c], mid = src[r_begin][c];
#pragma unroll
    for (int m = 0; m < MERGE_Y; ++m) {
      const int r = r_begin + m;
      if (kLoopRows % MERGE_Y != 0 && r >= S + kLoopRows) break;
      const float down = src[r + 1][c];
      const float v = c0 * mid + c1 * (up + down + src[r][c - 1] + src[r][c + 1]);
      const long long y = y0 + r;
      const bool inside = kInterior || (x_inside && y >= 0 && y < ny);
      if (S == STEPS) {
        if (inside) out[y * nx + x] = v;
      } else {
        dst[r][c] = inside ? v : 0.0f;
      }
      up = mid;
      mid = down;
    }
  }
}

template <int STEPS, int S, bool kInterior, int kRows, int kCols>
__device__ __forceinline__ void chain_loops(float (*tiles)[kRows][kCols + PAD],
                                            float* __restrict__ out, int nx, int ny, long long x0,
                                            long long y0, float c0, float c1) {
  chain_loop<STEPS, S, kInterior, kRows, kCols>(tiles[(S - 1) & 1], tiles[S & 1], out, nx, ny,
                                                 x0, y0, c0, c1);
  if constexpr (S < STEPS) {
    __syncthreads();
    chain_loops<STEPS, S + 1, kInterior, kRows, kCols>(tiles, out, nx, ny, x0, y0, c0, c1);
  }
}

template <int STEPS>
__global__ void stencil5_fused(float* __restrict__ out, const float* __restrict__ in, int nx,
                               int ny, float c0, float c1) {
  constexpr int kTileX = BX, kTileY = BY * MERGE_Y;
  constexpr int kCols = kTileX + 2 * STEPS, kRows = kTileY + 2 * STEPS;
  // Two tiles, in turn the source and the destination of a loop.
  __shared__ float tiles[2][kRows][kCols + PAD];

  const long long x0 = static_cast<long long>(blockIdx.x) * kTileX - STEPS;  // tile column 0
  const long long y0 = static_cast<long long>(blockIdx.y) * kTileY - STEPS;  // tile row 0
  const bool interior = x0 >= 0 && y0 >= 0 && x0 + kCols <= nx && y0 + kRows <= ny;
  const int tid = threadIdx.y * BX + threadIdx.x;

  // Every load of the tile is issued before any is stored, so a thread has them all in flight
  // at once rather than one global-memory latency each.
  constexpr int kElements = kRows * kCols, kPerThread = (kElements + BX * BY - 1) / (BX * BY);
  float staged[kPerThread];
  const float* corner = in + y0 * nx + x0;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int e = tid + k * BX * BY;
    const int r = e / kCols, c = e % kCols;
    if (e < kElements) {
      staged[k] = interior ? __ldg(corner + static_cast<long long>(r) * nx + c)
                           : at(in, nx, ny, y0 + r, x0 + c);
    }
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int e = tid + k * BX * BY;
    if (e < kElements) tiles[0][e / kCols][e % kCols] = staged[k];
  }
  __syncthreads();
  if (interior) {
    chain_loops<STEPS, 1, true, kRows, kCols>(tiles, out, nx, ny, x0, y0, c0, c1);
  } else {
    chain_loops<STEPS, 1, false, kRows, kCols>(tiles, out, nx, ny, x0, y0, c0, c1);
  }
}
