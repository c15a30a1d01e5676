// C = A * B for n x n row-major matrices through 16 x 16 shared tiles; the block is 16 x 16.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx_gputune0 = (threadIdx.x * 4);
  int tx_gputune1 = (threadIdx.x * 4 + 1);
  int tx_gputune2 = (threadIdx.x * 4 + 2);
  int tx_gputune3 = (threadIdx.x * 4 + 3);
  int ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty;
  int col_gputune0 = blockIdx.x * 16 + tx_gputune0;
  int col_gputune1 = blockIdx.x * 16 + tx_gputune1;
  int col_gputune2 = blockIdx.x * 16 + tx_gputune2;
  int col_gputune3 = blockIdx.x * 16 + tx_gputune3;
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  float sum_gputune2 = 0.0f;
  float sum_gputune3 = 0.0f;
  for (int t = 0; t < (n + 15) / 16; ++t) {
    As[ty][tx_gputune0] = row < n && t * 16 + tx_gputune0 < n ? A[row * n + t * 16 + tx_gputune0] : 0.0f;
    As[ty][tx_gputune1] = row < n && t * 16 + tx_gputune1 < n ? A[row * n + t * 16 + tx_gputune1] : 0.0f;
    As[ty][tx_gputune2] = row < n && t * 16 + tx_gputune2 < n ? A[row * n + t * 16 + tx_gputune2] : 0.0f;
    As[ty][tx_gputune3] = row < n && t * 16 + tx_gputune3 < n ? A[row * n + t * 16 + tx_gputune3] : 0.0f;
    Bs[ty][tx_gputune0] = t * 16 + ty < n && col_gputune0 < n ? B[(t * 16 + ty) * n + col_gputune0] : 0.0f;
    Bs[ty][tx_gputune1] = t * 16 + ty < n && col_gputune1 < n ? B[(t * 16 + ty) * n + col_gputune1] : 0.0f;
    Bs[ty][tx_gputune2] = t * 16 + ty < n && col_gputune2 < n ? B[(t * 16 + ty) * n + col_gputune2] : 0.0f;
    Bs[ty][tx_gputune3] = t * 16 + ty < n && col_gputune3 < n ? B[(t * 16 + ty) * n + col_gputune3] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      float gputune_t0 = As[ty][k];
      sum_gputune0 += gputune_t0 * Bs[k][tx_gputune0];
      sum_gputune1 += gputune_t0 * Bs[k][tx_gputune1];
      sum_gputune2 += gputune_t0 * Bs[k][tx_gputune2];
      sum_gputune3 += gputune_t0 * Bs[k][tx_gputune3];
    }
    __syncthreads();
  }
  if (row < n && col_gputune0 < n) C[row * n + col_gputune0] = sum_gputune0;
  if (row < n && col_gputune1 < n) C[row * n + col_gputune1] = sum_gputune1;
  if (row < n && col_gputune2 < n) C[row * n + col_gputune2] = sum_gputune2;
  if (row < n && col_gputune3 < n) C[row * n + col_gputune3] = sum_gputune3;
}
