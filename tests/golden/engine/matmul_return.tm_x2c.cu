// C = A * B for n x n row-major matrices; threads outside the matrix leave at once.
__global__ void matmul_return(const float* A, const float* B, float* C, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col_gputune0 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2);
  const int col_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2 + 1);
  bool gputune_p0 = row >= n || col_gputune0 >= n;
  bool gputune_p1 = row >= n || col_gputune1 >= n;
  if (!gputune_p0 || !gputune_p1) {
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  for (int k = 0; k < n; ++k) {
    float gputune_t0 = A[row * n + k];
    if (!gputune_p0) sum_gputune0 += gputune_t0 * B[k * n + col_gputune0];
    if (!gputune_p1) sum_gputune1 += gputune_t0 * B[k * n + col_gputune1];
  }
  if (!gputune_p0) C[row * n + col_gputune0] = sum_gputune0;
  if (!gputune_p1) C[row * n + col_gputune1] = sum_gputune1;
  }
}
