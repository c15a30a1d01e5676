// y[row] = the sum over lo <= j <= hi of A[row][j] * x[j]: one thread per row, the row's band
// read down the loop (uncoalesced across a warp); stage_shared stages it strip by strip.
__global__ void band_matvec(float* y, const float* A, const float* x, int m, int n, int lo,
                            int hi) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float gputune_A_tile[64][8];
  {  // stage_shared: every thread runs the strips' barriers; gputune_guard keeps the condition
    const bool gputune_guard = row < m;
    float dot = 0.0f;
    if (gputune_guard) { y[row] = 0.0f; }
    for (int gputune_s = 0; gputune_s + (long long)lo <= (long long)hi; gputune_s += 8) {
      {  // stage_shared: the block's 64 threads load the strip's 64 x 8 words of A (8 each), neighbouring threads on neighbouring words, zero outside A
        const int gputune_block_thread = threadIdx.x;
        const int gputune_strip = gputune_s;
        #pragma unroll
        for (int gputune_r = 0; gputune_r < 8; ++gputune_r) {
          const int gputune_w = gputune_block_thread + 64 * gputune_r;
          const int gputune_i = gputune_w / 8;
          const int gputune_c = gputune_w % 8;
          gputune_A_tile[gputune_i][gputune_c] = gputune_i + 64*(long long)blockIdx.x < (long long)m && (gputune_strip + gputune_c) + (long long)lo <= (long long)hi ? A[(long long)n*gputune_i + 64*(long long)n*(long long)blockIdx.x + (gputune_strip + gputune_c) + (long long)lo] : float();
        }
      }
      __syncthreads();
      if ((gputune_s + 7) + (long long)lo <= (long long)hi) {  // a whole strip: its iterations unrolled
      #pragma unroll
      for (int j = (lo) + gputune_s; j - (lo) < gputune_s + 8; ++j) {
      dot += gputune_A_tile[threadIdx.x][j - (lo) - gputune_s] * x[j];
    }
      } else for (int j = (lo) + gputune_s; (j <= hi) && j - (lo) < gputune_s + 8; ++j) {
      dot += gputune_A_tile[threadIdx.x][j - (lo) - gputune_s] * x[j];
    }
      __syncthreads();
    }
    if (gputune_guard) {  // the statements after the loop
    y[row] += dot;
    }
  }
}
