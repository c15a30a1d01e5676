// C = A * B for n x n row-major matrices through 16 x 16 shared tiles; the block is 16 x 16.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  const bool gputune_active = !(blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x);
  __shared__ float As[16][16];
  __shared__ float Bs[2][16][16];
  int tx = (threadIdx.x % gputune_block_x), ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty;
  int col = (blockIdx.x * 2 + gputune_sub_x) * 16 + tx;
  float sum = 0.0f;
  for (int t = 0; t < (n + 15) / 16; ++t) {
    if (gputune_sub_x == 0) As[ty][tx] = row < n && t * 16 + tx < n ? A[row * n + t * 16 + tx] : 0.0f;
    if (gputune_active) Bs[gputune_sub_x][ty][tx] = t * 16 + ty < n && col < n ? B[(t * 16 + ty) * n + col] : 0.0f;
    __syncthreads();
    if (gputune_active) for (int k = 0; k < 16; ++k) sum += As[ty][k] * Bs[gputune_sub_x][k][tx];
    __syncthreads();
  }
  if (gputune_active) { if (row < n && col < n) C[row * n + col] = sum; }
}
