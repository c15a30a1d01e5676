// C = A * B for n x n row-major matrices through 16 x 16 shared tiles; the block is 16 x 16.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n, unsigned int gputune_grid_y) {
  const unsigned int gputune_block_y = blockDim.y / 2;
  const unsigned int gputune_sub_y = threadIdx.y / gputune_block_y;
  const bool gputune_active = !(blockIdx.y * 2 + gputune_sub_y >= gputune_grid_y);
  __shared__ float As[2][16][16];
  __shared__ float Bs[16][16];
  int tx = threadIdx.x, ty = (threadIdx.y % gputune_block_y);
  int row = (blockIdx.y * 2 + gputune_sub_y) * 16 + ty;
  int col = blockIdx.x * 16 + tx;
  float sum = 0.0f;
  for (int t = 0; t < (n + 15) / 16; ++t) {
    if (gputune_active) As[gputune_sub_y][ty][tx] = row < n && t * 16 + tx < n ? A[row * n + t * 16 + tx] : 0.0f;
    if (gputune_sub_y == 0) Bs[ty][tx] = t * 16 + ty < n && col < n ? B[(t * 16 + ty) * n + col] : 0.0f;
    __syncthreads();
    if (gputune_active) for (int k = 0; k < 16; ++k) sum += As[gputune_sub_y][ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (gputune_active) { if (row < n && col < n) C[row * n + col] = sum; }
}
