// Transpose through a shared tile, as the CUDA samples teach it: each block loads a
// TILE x TILE tile with coalesced reads, waits at a barrier, and writes it back transposed,
// again coalesced. The tile is read down its columns on the way out.
#define TILE 32

__global__ void tiled_transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) {
    tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < rows && y < cols) {
    out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
  }
}
