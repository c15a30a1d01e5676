// out = in^T for an n x n row-major float32 matrix; any n (ragged edge tiles are guarded).
// Parameters (macros):
//   TILE     edge of the square tile one block transposes
//   MERGE_Y  rows each thread handles (thread merge); the block is (TILE / VEC) x (TILE / MERGE_Y)
//   VEC      elements each thread moves per access: 1, 2 or 4 (float, float2, float4); a
//            vector access is used where the whole vector is inside the matrix and n % VEC == 0
//            (rows stay aligned), single elements elsewhere
//   SHARED   0: read and write global memory directly; 1: stage the tile in shared memory so
//            that both the read and the write are coalesced
//   PAD      extra columns in the shared tile, which move a column's words into different
//            banks (SHARED == 1 only)
#include "gputune.cuh"

#ifndef TILE
#define TILE 32
#endif
#ifndef MERGE_Y
#define MERGE_Y 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef SHARED
#define SHARED 1
#endif
#ifndef PAD
#define PAD 0
#endif

#define ROWS_PER_PASS (TILE / MERGE_Y)

extern "C" __global__ void transpose(float* __restrict__ out, const float* __restrict__ in,
                                     int n) {
  const long long size = n;
  const long long tile_x = static_cast<long long>(blockIdx.x) * TILE;
  const long long tile_y = static_cast<long long>(blockIdx.y) * TILE;
  const int col = threadIdx.x * VEC;  // first column of this thread inside the tile
  const long long x = tile_x + col;
  const bool vec_ok = size % VEC == 0;
#if SHARED
  GPUTUNE_SHARED_TILE(float, tile, TILE, TILE, PAD);
  // All loads first, then the shared-memory stores: MERGE_Y independent loads in flight.
  float v[MERGE_Y][VEC];
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
    const long long y = tile_y + threadIdx.y + j * ROWS_PER_PASS;
    if (y < size) {
      gputune::load_guarded<VEC>(in + y * size, x, size, vec_ok, v[j]);
    } else {
#pragma unroll
      for (int k = 0; k < VEC; ++k) v[j][k] = 0.0f;
    }
  }
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
#pragma unroll
    for (int k = 0; k < VEC; ++k) tile[threadIdx.y + j * ROWS_PER_PASS][col + k] = v[j][k];
  }
  __syncthreads();
  // The block writes the mirrored tile: its rows are the input tile's columns, and this
  // thread's VEC outputs of a row are VEC consecutive input rows of one column.
  const long long out_x = tile_y + col;
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
    const int c = threadIdx.y + j * ROWS_PER_PASS;
    const long long out_y = tile_x + c;
    float w[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) w[k] = tile[col + k][c];
    if (out_y < size) gputune::store_guarded<VEC>(out + out_y * size, out_x, size, vec_ok, w);
  }
#else
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
    const long long y = tile_y + threadIdx.y + j * ROWS_PER_PASS;
    if (y >= size) continue;
    float v[VEC];
    gputune::load_guarded<VEC>(in + y * size, x, size, vec_ok, v);
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      if (x + k < size) out[(x + k) * size + y] = v[k];
  }
#endif
}
