__global__ void k(float* y, const float* A, int lo, int hi) {
  float s = 0;
  __shared__ float gputune_A_tile[64][8];
  for (int gputune_s = 0; gputune_s + (long long)lo < (long long)hi; gputune_s += 8) {
    {  // stage_shared: the block's 64 threads load the strip's 64 x 8 words of A (8 each), neighbouring threads on neighbouring words, zero outside A
      const int gputune_block_thread = threadIdx.x;
      const int gputune_strip = gputune_s;
      #pragma unroll
      for (int gputune_r = 0; gputune_r < 8; ++gputune_r) {
        const int gputune_w = gputune_block_thread + 64 * gputune_r;
        const int gputune_i = gputune_w / 8;
        const int gputune_c = gputune_w % 8;
        gputune_A_tile[gputune_i][gputune_c] = (gputune_strip + gputune_c) + (long long)lo < (long long)hi ? A[(long long)hi*gputune_i + 64*(long long)hi*(long long)blockIdx.x + (gputune_strip + gputune_c) + (long long)lo] : float();
      }
    }
    __syncthreads();
    if ((gputune_s + 7) + (long long)lo < (long long)hi) {  // a whole strip: its iterations unrolled
    #pragma unroll
    for (int j = (lo) + gputune_s; j - (lo) < gputune_s + 8; ++j) s += gputune_A_tile[threadIdx.x][j - (lo) - gputune_s];
    } else for (int j = (lo) + gputune_s; (j < hi) && j - (lo) < gputune_s + 8; ++j) s += gputune_A_tile[threadIdx.x][j - (lo) - gputune_s];
    __syncthreads();
  }
  y[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
