// C = A * B for n x n row-major matrices through 16 x 16 shared tiles; the block is 16 x 16.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  const bool gputune_active_gputune0 = !(blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x);
  const bool gputune_active_gputune1 = !(blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x);
  __shared__ float As[16][16];
  __shared__ float Bs[2][16][16];
  int tx_gputune0 = (threadIdx.x % gputune_block_x);
  int tx_gputune1 = ((threadIdx.x + blockDim.x) % gputune_block_x);
  int ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty;
  int col_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * 16 + tx_gputune0;
  int col_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * 16 + tx_gputune1;
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  for (int t = 0; t < (n + 15) / 16; ++t) {
    if (gputune_sub_x_gputune0 == 0) As[ty][tx_gputune0] = row < n && t * 16 + tx_gputune0 < n ? A[row * n + t * 16 + tx_gputune0] : 0.0f;
    if (gputune_sub_x_gputune1 == 0) As[ty][tx_gputune1] = row < n && t * 16 + tx_gputune1 < n ? A[row * n + t * 16 + tx_gputune1] : 0.0f;
    if (gputune_active_gputune0) Bs[gputune_sub_x_gputune0][ty][tx_gputune0] = t * 16 + ty < n && col_gputune0 < n ? B[(t * 16 + ty) * n + col_gputune0] : 0.0f;
    if (gputune_active_gputune1) Bs[gputune_sub_x_gputune1][ty][tx_gputune1] = t * 16 + ty < n && col_gputune1 < n ? B[(t * 16 + ty) * n + col_gputune1] : 0.0f;
    __syncthreads();
    bool gputune_p0 = gputune_active_gputune0;
    bool gputune_p1 = gputune_active_gputune1;
    if (gputune_p0 || gputune_p1) {
      for (int k = 0; k < 16; ++k) {
        float gputune_t0 = As[ty][k];
        if (gputune_p0) sum_gputune0 += gputune_t0 * Bs[gputune_sub_x_gputune0][k][tx_gputune0];
        if (gputune_p1) sum_gputune1 += gputune_t0 * Bs[gputune_sub_x_gputune1][k][tx_gputune1];
      }
    }
    __syncthreads();
  }
  if (gputune_active_gputune0) { if (row < n && col_gputune0 < n) C[row * n + col_gputune0] = sum_gputune0; }
  if (gputune_active_gputune1) { if (row < n && col_gputune1 < n) C[row * n + col_gputune1] = sum_gputune1; }
}
