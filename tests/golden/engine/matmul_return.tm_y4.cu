// C = A * B for n x n row-major matrices; threads outside the matrix leave at once.
__global__ void matmul_return(const float* A, const float* B, float* C, int n) {
  const int row_gputune0 = blockIdx.y * (blockDim.y * 4) + threadIdx.y;
  const int row_gputune1 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y + blockDim.y);
  const int row_gputune2 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y + 2 * blockDim.y);
  const int row_gputune3 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y + 3 * blockDim.y);
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  bool gputune_p0 = row_gputune0 >= n || col >= n;
  bool gputune_p1 = row_gputune1 >= n || col >= n;
  bool gputune_p2 = row_gputune2 >= n || col >= n;
  bool gputune_p3 = row_gputune3 >= n || col >= n;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3) {
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  float sum_gputune2 = 0.0f;
  float sum_gputune3 = 0.0f;
  for (int k = 0; k < n; ++k) {
    float gputune_t0 = B[k * n + col];
    if (!gputune_p0) sum_gputune0 += A[row_gputune0 * n + k] * gputune_t0;
    if (!gputune_p1) sum_gputune1 += A[row_gputune1 * n + k] * gputune_t0;
    if (!gputune_p2) sum_gputune2 += A[row_gputune2 * n + k] * gputune_t0;
    if (!gputune_p3) sum_gputune3 += A[row_gputune3 * n + k] * gputune_t0;
  }
  if (!gputune_p0) C[row_gputune0 * n + col] = sum_gputune0;
  if (!gputune_p1) C[row_gputune1 * n + col] = sum_gputune1;
  if (!gputune_p2) C[row_gputune2 * n + col] = sum_gputune2;
  if (!gputune_p3) C[row_gputune3 * n + col] = sum_gputune3;
  }
}
