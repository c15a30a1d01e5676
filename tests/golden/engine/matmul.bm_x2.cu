// C = A * B for n x n row-major matrices, one thread per element of C.
__global__ void matmul(const float* A, const float* B, float* C, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  if (blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x) return;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = (blockIdx.x * 2 + gputune_sub_x) * gputune_block_x + (threadIdx.x % gputune_block_x);
  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += A[row * n + k] * B[k * n + col];
    }
    C[row * n + col] = sum;
  }
}
