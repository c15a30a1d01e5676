// C = A * B for n x n row-major matrices through 16 x 16 shared tiles; the block is 16 x 16.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx_gputune0 = threadIdx.x;
  int tx_gputune1 = (threadIdx.x + blockDim.x);
  int ty_gputune0 = threadIdx.y;
  int ty_gputune1 = (threadIdx.y + blockDim.y);
  int row_gputune0 = blockIdx.y * 16 + ty_gputune0;
  int row_gputune1 = blockIdx.y * 16 + ty_gputune1;
  int col_gputune0 = blockIdx.x * 16 + tx_gputune0;
  int col_gputune1 = blockIdx.x * 16 + tx_gputune1;
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  float sum_gputune2 = 0.0f;
  float sum_gputune3 = 0.0f;
  for (int t = 0; t < (n + 15) / 16; ++t) {
    As[ty_gputune0][tx_gputune0] = row_gputune0 < n && t * 16 + tx_gputune0 < n ? A[row_gputune0 * n + t * 16 + tx_gputune0] : 0.0f;
    As[ty_gputune0][tx_gputune1] = row_gputune0 < n && t * 16 + tx_gputune1 < n ? A[row_gputune0 * n + t * 16 + tx_gputune1] : 0.0f;
    As[ty_gputune1][tx_gputune0] = row_gputune1 < n && t * 16 + tx_gputune0 < n ? A[row_gputune1 * n + t * 16 + tx_gputune0] : 0.0f;
    As[ty_gputune1][tx_gputune1] = row_gputune1 < n && t * 16 + tx_gputune1 < n ? A[row_gputune1 * n + t * 16 + tx_gputune1] : 0.0f;
    Bs[ty_gputune0][tx_gputune0] = t * 16 + ty_gputune0 < n && col_gputune0 < n ? B[(t * 16 + ty_gputune0) * n + col_gputune0] : 0.0f;
    Bs[ty_gputune0][tx_gputune1] = t * 16 + ty_gputune0 < n && col_gputune1 < n ? B[(t * 16 + ty_gputune0) * n + col_gputune1] : 0.0f;
    Bs[ty_gputune1][tx_gputune0] = t * 16 + ty_gputune1 < n && col_gputune0 < n ? B[(t * 16 + ty_gputune1) * n + col_gputune0] : 0.0f;
    Bs[ty_gputune1][tx_gputune1] = t * 16 + ty_gputune1 < n && col_gputune1 < n ? B[(t * 16 + ty_gputune1) * n + col_gputune1] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      float gputune_t0 = As[ty_gputune0][k];
      float gputune_t1 = As[ty_gputune1][k];
      float gputune_t2 = Bs[k][tx_gputune0];
      float gputune_t3 = Bs[k][tx_gputune1];
      sum_gputune0 += gputune_t0 * gputune_t2;
      sum_gputune1 += gputune_t0 * gputune_t3;
      sum_gputune2 += gputune_t1 * gputune_t2;
      sum_gputune3 += gputune_t1 * gputune_t3;
    }
    __syncthreads();
  }
  if (row_gputune0 < n && col_gputune0 < n) C[row_gputune0 * n + col_gputune0] = sum_gputune0;
  if (row_gputune0 < n && col_gputune1 < n) C[row_gputune0 * n + col_gputune1] = sum_gputune1;
  if (row_gputune1 < n && col_gputune0 < n) C[row_gputune1 * n + col_gputune0] = sum_gputune2;
  if (row_gputune1 < n && col_gputune1 < n) C[row_gputune1 * n + col_gputune1] = sum_gputune3;
}
