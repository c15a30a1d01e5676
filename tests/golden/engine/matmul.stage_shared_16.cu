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
      {  // stage_shared: the block's 256 threads load the strip's 16 x 16 words of A (1 each), neighbouring threads on neighbouring words, zero outside A
        const int gputune_block_thread = threadIdx.x + 16 * threadIdx.y;
        const int gputune_strip = gputune_s;
        #pragma unroll
        for (int gputune_r = 0; gputune_r < 1; ++gputune_r) {
          const int gputune_w = gputune_block_thread + 256 * gputune_r;
          const int gputune_i = gputune_w / 16;
          const int gputune_c = gputune_w % 16;
          gputune_A_tile[gputune_i][gputune_c] = gputune_i + 16*(long long)blockIdx.y < (long long)m && (gputune_strip + gputune_c) < (long long)k ? A[(long long)k*gputune_i + 16*(long long)k*(long long)blockIdx.y + (gputune_strip + gputune_c)] : float();
        }
      }
      {  // stage_shared: the block's 256 threads load the strip's 16 x 16 words of B (1 each), neighbouring threads on neighbouring words, zero outside B
        const int gputune_block_thread = threadIdx.x + 16 * threadIdx.y;
        const int gputune_strip = gputune_s;
        #pragma unroll
        for (int gputune_r = 0; gputune_r < 1; ++gputune_r) {
          const int gputune_w = gputune_block_thread + 256 * gputune_r;
          const int gputune_c = gputune_w / 16;
          const int gputune_i = gputune_w % 16;
          gputune_B_tile[gputune_c][gputune_i] = gputune_i + 16*(long long)blockIdx.x < (long long)n && (gputune_strip + gputune_c) < (long long)k ? B[gputune_i + 16*(long long)blockIdx.x + (long long)n*(gputune_strip + gputune_c)] : float();
        }
      }
      __syncthreads();
      if ((gputune_s + 15) < (long long)k) {  // a whole strip: its iterations unrolled
      #pragma unroll
      for (int i = gputune_s; i < gputune_s + 16; i++) {
      sum += gputune_A_tile[threadIdx.y][i - gputune_s] * gputune_B_tile[i - gputune_s][threadIdx.x];
    }
      } else for (int i = gputune_s; (i < k) && i < gputune_s + 16; i++) {
      sum += gputune_A_tile[threadIdx.y][i - gputune_s] * gputune_B_tile[i - gputune_s][threadIdx.x];
    }
      __syncthreads();
    }
    if (gputune_guard) {  // the statements after the loop
    C[row * n + col] = sum;
    }
  }
}
