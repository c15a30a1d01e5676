// C = A * B for n x n row-major matrices; threads outside the matrix leave at once.
__global__ void matmul_return(const float* A, const float* B, float* C, int n) {
  const int row_gputune0 = blockIdx.y * (blockDim.y * 2) + threadIdx.y;
  const int row_gputune1 = blockIdx.y * (blockDim.y * 2) + (threadIdx.y + blockDim.y);
  const int col_gputune0 = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  const int col_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x + blockDim.x);
  bool gputune_p0 = row_gputune0 >= n || col_gputune0 >= n;
  bool gputune_p1 = row_gputune0 >= n || col_gputune1 >= n;
  bool gputune_p2 = row_gputune1 >= n || col_gputune0 >= n;
  bool gputune_p3 = row_gputune1 >= n || col_gputune1 >= n;
  bool gputune_u0 = !gputune_p0 || !gputune_p1;
  bool gputune_u1 = !gputune_p2 || !gputune_p3;
  bool gputune_u2 = !gputune_p0 || !gputune_p2;
  bool gputune_u3 = !gputune_p1 || !gputune_p3;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3) {
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  float sum_gputune2 = 0.0f;
  float sum_gputune3 = 0.0f;
  for (int k = 0; k < n; ++k) {
    float gputune_t0 = gputune_u0 ? (A[row_gputune0 * n + k]) : (float)0;
    float gputune_t1 = gputune_u1 ? (A[row_gputune1 * n + k]) : (float)0;
    float gputune_t2 = gputune_u2 ? (B[k * n + col_gputune0]) : (float)0;
    float gputune_t3 = gputune_u3 ? (B[k * n + col_gputune1]) : (float)0;
    sum_gputune0 += gputune_t0 * gputune_t2;
    sum_gputune1 += gputune_t0 * gputune_t3;
    sum_gputune2 += gputune_t1 * gputune_t2;
    sum_gputune3 += gputune_t1 * gputune_t3;
  }
  if (!gputune_p0) C[row_gputune0 * n + col_gputune0] = sum_gputune0;
  if (!gputune_p1) C[row_gputune0 * n + col_gputune1] = sum_gputune1;
  if (!gputune_p2) C[row_gputune1 * n + col_gputune0] = sum_gputune2;
  if (!gputune_p3) C[row_gputune1 * n + col_gputune1] = sum_gputune3;
  }
}
