// y = A x for a row-major m x n matrix A: one thread per row, each walking its own row.
__global__ void matvec(float* y, const float* A, const float* x, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float gputune_A_tile[128][32 + 1];
  {  // stage_shared: every thread runs the strips' barriers; gputune_guard keeps the condition
    const bool gputune_guard = row < m;
    float dot = 0.0f;
    for (int gputune_s = 0; gputune_s < (long long)n; gputune_s += 32) {
      {  // stage_shared: the block's 128 threads load the strip's 128 x 32 words of A (32 each), neighbouring threads on neighbouring words, zero outside A
        const int gputune_block_thread = threadIdx.x;
        const int gputune_strip = gputune_s;
        #pragma unroll
        for (int gputune_r = 0; gputune_r < 32; ++gputune_r) {
          const int gputune_w = gputune_block_thread + 128 * gputune_r;
          const int gputune_i = gputune_w / 32;
          const int gputune_c = gputune_w % 32;
          gputune_A_tile[gputune_i][gputune_c] = gputune_i + 128*(long long)blockIdx.x < (long long)m && (gputune_strip + gputune_c) < (long long)n ? A[(long long)n*gputune_i + 128*(long long)n*(long long)blockIdx.x + (gputune_strip + gputune_c)] : float();
        }
      }
      __syncthreads();
      if ((gputune_s + 31) < (long long)n) {  // a whole strip: its iterations unrolled
      #pragma unroll
      for (int j = gputune_s; j < gputune_s + 32; ++j) {
      dot += gputune_A_tile[threadIdx.x][j - gputune_s] * x[j];
    }
      } else for (int j = gputune_s; (j < n) && j < gputune_s + 32; ++j) {
      dot += gputune_A_tile[threadIdx.x][j - gputune_s] * x[j];
    }
      __syncthreads();
    }
    if (gputune_guard) {  // the statements after the loop
    y[row] = dot;
    }
  }
}
