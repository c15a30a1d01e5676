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

template <int STEPS>
__global__ void stencil5_fused(float* __restrict__ out, const float* __restrict__ in, int nx,
                               int ny, float c0, float c1) {
  constexpr int kTileX = BX, kTileY = BY * MERGE_Y;
  constexpr int kCols = kTileX + 2 * STEPS, kRows = kTileY + 2 * STEPS;
  constexpr int kThreads = BX * BY;
  // Two tiles, in turn the source and the destination of a loop.
  __shared__ float tiles[2][kRows][kCols + PAD];

  const long long x0 = static_cast<long long>(blockIdx.x) * kTileX - STEPS;  // tile column 0
  const long long y0 = static_cast<long long>(blockIdx.y) * kTileY - STEPS;  // tile row 0
  const int tid = threadIdx.y * BX + threadIdx.x;

  for (int e = tid; e < kRows * kCols; e += kThreads) {
    const int r = e / kCols, c = e % kCols;
    tiles[0][r][c] = at(in, nx, ny, y0 + r, x0 + c);
  }
  __syncthreads();

#pragma unroll
  for (int s = 1; s <= STEPS; ++s) {
    const float(*src)[kCols + PAD] = tiles[(s - 1) & 1];
    float(*dst)[kCols + PAD] = tiles[s & 1];
    // Loop s is valid on the tile less s points per side. Work items are strips of MERGE_Y
    // rows in one column; neighbouring threads take neighbouring columns.
    const int cols = kCols - 2 * s, rows = kRows - 2 * s;
    const int strips = (rows + MERGE_Y - 1) / MERGE_Y;
    for (int item = tid; item < cols * strips; item += kThreads) {
      const int c = s + item % cols;
      const int r_begin = s + (item / cols) * MERGE_Y;
      const int r_end = min(r_begin + MERGE_Y, s + rows);
      const long long x = x0 + c;
      float up = src[r_begin - 1][c], mid = src[r_begin][c];
#pragma unroll
      for (int m = 0; m < MERGE_Y; ++m) {
        const int r = r_begin + m;
        if (r >= r_end) break;
        const float down = src[r + 1][c];
        const float v = c0 * mid + c1 * (up + down + src[r][c - 1] + src[r][c + 1]);
        const long long y = y0 + r;
        const bool inside = y >= 0 && y < ny && x >= 0 && x < nx;
        if (s == STEPS) {
          if (inside) out[y * nx + x] = v;
        } else {
          dst[r][c] = inside ? v : 0.0f;
        }
        up = mid;
        mid = down;
      }
    }
    if (s < STEPS) __syncthreads();
  }
}
