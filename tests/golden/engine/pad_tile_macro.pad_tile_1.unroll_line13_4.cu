// TILE comes from the spec (-DTILE=...); the tile is already padded by one, an expression.
// `partial` is one-dimensional, so padding leaves it alone.
__global__ void column_sums(float* sums, const float* in, int width, int height) {
  __shared__ float tile[TILE][(TILE+1) + 1];
  __shared__ float partial[TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int row0 = 0; row0 < height; row0 += TILE) {
    int y = row0 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = (x < width && y < height) ? in[y * width + x] : 0.0f;
    __syncthreads();
    if (threadIdx.y == 0) {
      #pragma unroll 4
      for (int r = 0; r < TILE; ++r) sum += tile[r][threadIdx.x];
    }
    __syncthreads();
  }
  if (threadIdx.y == 0) partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && x < width) sums[x] = partial[threadIdx.x];
}
