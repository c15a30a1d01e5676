// C = A * B for n x n row-major matrices; threads outside the matrix leave at once.
__global__ void matmul_return(const float* A, const float* B, float* C, int n, unsigned int gputune_grid_y) {
  const unsigned int gputune_block_y = blockDim.y / 2;
  const unsigned int gputune_sub_y = threadIdx.y / gputune_block_y;
  if (blockIdx.y * 2 + gputune_sub_y >= gputune_grid_y) return;
  const int row = (blockIdx.y * 2 + gputune_sub_y) * gputune_block_y + (threadIdx.y % gputune_block_y);
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += A[row * n + k] * B[k * n + col];
  C[row * n + col] = sum;
}
