// out = in^T for an n x n row-major float32 matrix; any n (ragged edge tiles are guarded).
// Parameters (macros):
//   TILE     edge of the square tile one block transposes
//   MERGE_Y  rows each thread handles; the block is TILE x (TILE / MERGE_Y)
//   SHARED   0: read and write global memory directly; 1: stage the tile in shared memory so
//            that both the read and the write are coalesced
//   PAD      extra column in the shared tile, which moves a column's words into different
//            banks (SHARED == 1 only)
#ifndef TILE
#define TILE 32
#endif
#ifndef MERGE_Y
#define MERGE_Y 1
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
  const long long x = tile_x + threadIdx.x;
#if SHARED
  __shared__ float tile[TILE][TILE + PAD];
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    const long long y = tile_y + threadIdx.y + j;
    if (x < size && y < size) tile[threadIdx.y + j][threadIdx.x] = in[y * size + x];
  }
  __syncthreads();
  // The block writes the mirrored tile: its rows are the input tile's columns.
  const long long out_x = tile_y + threadIdx.x;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    const long long out_y = tile_x + threadIdx.y + j;
    if (out_x < size && out_y < size) {
      out[out_y * size + out_x] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
#else
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    const long long y = tile_y + threadIdx.y + j;
    if (x < size && y < size) out[x * size + y] = in[y * size + x];
  }
#endif
}
