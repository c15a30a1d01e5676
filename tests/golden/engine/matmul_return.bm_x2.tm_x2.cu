// C = A * B for n x n row-major matrices; threads outside the matrix leave at once.
__global__ void matmul_return(const float* A, const float* B, float* C, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  bool gputune_p0 = blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x;
  bool gputune_p1 = blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x;
  if (!gputune_p0 || !gputune_p1) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + (threadIdx.x % gputune_block_x);
  const int col_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x + blockDim.x) % gputune_block_x);
  bool gputune_p2 = !gputune_p0 && (row >= n || col_gputune0 >= n);
  bool gputune_p3 = !gputune_p1 && (row >= n || col_gputune1 >= n);
  bool gputune_p4 = !gputune_p0 && !gputune_p2;
  bool gputune_p5 = !gputune_p1 && !gputune_p3;
  if (gputune_p4 || gputune_p5) {
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  for (int k = 0; k < n; ++k) {
    float gputune_t0 = A[row * n + k];
    if (gputune_p4) sum_gputune0 += gputune_t0 * B[k * n + col_gputune0];
    if (gputune_p5) sum_gputune1 += gputune_t0 * B[k * n + col_gputune1];
  }
  if (gputune_p4) C[row * n + col_gputune0] = sum_gputune0;
  if (gputune_p5) C[row * n + col_gputune1] = sum_gputune1;
  }
  }
}
