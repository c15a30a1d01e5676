// C = A * B for n x n row-major matrices through 16 x 16 shared tiles; the block is 16 x 16.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx = threadIdx.x;
  int ty_gputune0 = threadIdx.y;
  int ty_gputune1 = (threadIdx.y + blockDim.y);
  int ty_gputune2 = (threadIdx.y + 2 * blockDim.y);
  int ty_gputune3 = (threadIdx.y + 3 * blockDim.y);
  int row_gputune0 = blockIdx.y * 16 + ty_gputune0;
  int row_gputune1 = blockIdx.y * 16 + ty_gputune1;
  int row_gputune2 = blockIdx.y * 16 + ty_gputune2;
  int row_gputune3 = blockIdx.y * 16 + ty_gputune3;
  int col = blockIdx.x * 16 + tx;
  float sum_gputune0 = 0.0f;
  float sum_gputune1 = 0.0f;
  float sum_gputune2 = 0.0f;
  float sum_gputune3 = 0.0f;
  for (int t = 0; t < (n + 15) / 16; ++t) {
    As[ty_gputune0][tx] = row_gputune0 < n && t * 16 + tx < n ? A[row_gputune0 * n + t * 16 + tx] : 0.0f;
    As[ty_gputune1][tx] = row_gputune1 < n && t * 16 + tx < n ? A[row_gputune1 * n + t * 16 + tx] : 0.0f;
    As[ty_gputune2][tx] = row_gputune2 < n && t * 16 + tx < n ? A[row_gputune2 * n + t * 16 + tx] : 0.0f;
    As[ty_gputune3][tx] = row_gputune3 < n && t * 16 + tx < n ? A[row_gputune3 * n + t * 16 + tx] : 0.0f;
    Bs[ty_gputune0][tx] = t * 16 + ty_gputune0 < n && col < n ? B[(t * 16 + ty_gputune0) * n + col] : 0.0f;
    Bs[ty_gputune1][tx] = t * 16 + ty_gputune1 < n && col < n ? B[(t * 16 + ty_gputune1) * n + col] : 0.0f;
    Bs[ty_gputune2][tx] = t * 16 + ty_gputune2 < n && col < n ? B[(t * 16 + ty_gputune2) * n + col] : 0.0f;
    Bs[ty_gputune3][tx] = t * 16 + ty_gputune3 < n && col < n ? B[(t * 16 + ty_gputune3) * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      float gputune_t0 = Bs[k][tx];
      sum_gputune0 += As[ty_gputune0][k] * gputune_t0;
      sum_gputune1 += As[ty_gputune1][k] * gputune_t0;
      sum_gputune2 += As[ty_gputune2][k] * gputune_t0;
      sum_gputune3 += As[ty_gputune3][k] * gputune_t0;
    }
    __syncthreads();
  }
  if (row_gputune0 < n && col < n) C[row_gputune0 * n + col] = sum_gputune0;
  if (row_gputune1 < n && col < n) C[row_gputune1 * n + col] = sum_gputune1;
  if (row_gputune2 < n && col < n) C[row_gputune2 * n + col] = sum_gputune2;
  if (row_gputune3 < n && col < n) C[row_gputune3 * n + col] = sum_gputune3;
}
