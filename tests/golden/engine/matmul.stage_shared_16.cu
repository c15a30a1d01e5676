// C = A * B, one thread per element of C (row-major; A is m x k, B is k x n).
// A first version: each thread walks a row of A and a column of B.
__global__ void matmul(float* C, const float* A, const float* B, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  __shared__ float gputune_A_tile[16][16];
  __shared__ float gputune_B_tile[16][16];
  {  // stage_shared: every thread runs the strips' barriers; gputune_guard keeps the condition
    const bool gputune_guard = row < m && col < n;
    float sum = 0.0f;
    for (int gputune_s = 0; gputune_s < (long long)k; gputune_s += 16) {
      {  // stage_shared: the block loads the strip's 16 x 16 words of A, neighbouring threads on neighbouring words
        for (int gputune_w = threadIdx.y * 16 + threadIdx.x; gputune_w < 256; gputune_w += 256) {
          const long long gputune_i = gputune_w / 16;
          const long long gputune_c = gputune_w % 16;
          if (gputune_i + 16*(long long)blockIdx.y < (long long)m && (gputune_s + gputune_c) < (long long)k)
            gputune_A_tile[gputune_i][gputune_c] = A[(long long)k*gputune_i + 16*(long long)k*(long long)blockIdx.y + (gputune_s + gputune_c)];
        }
      }
      {  // stage_shared: the block loads the strip's 16 x 16 words of B, neighbouring threads on neighbouring words
        for (int gputune_w = threadIdx.y * 16 + threadIdx.x; gputune_w < 256; gputune_w += 256) {
          const long long gputune_c = gputune_w / 16;
          const long long gputune_i = gputune_w % 16;
          if (gputune_i + 16*(long long)blockIdx.x < (long long)n && (gputune_s + gputune_c) < (long long)k)
            gputune_B_tile[gputune_c][gputune_i] = B[gputune_i + 16*(long long)blockIdx.x + (long long)n*(gputune_s + gputune_c)];
        }
      }
      __syncthreads();
      for (int i = gputune_s; (i < k) && i < gputune_s + 16; i++) if (gputune_guard) {
      sum += gputune_A_tile[threadIdx.y][i - gputune_s] * gputune_B_tile[i - gputune_s][threadIdx.x];
    }
      __syncthreads();
    }
    if (gputune_guard) {  // the statements after the loop
    C[row * n + col] = sum;
    }
  }
}
