__global__ void k(float* y, const float* A, int lo, int hi) {
  float s = 0;
  __shared__ float gputune_A_tile[64][8];
  for (int gputune_s = 0; gputune_s + (long long)lo < (long long)hi; gputune_s += 8) {
    {  // stage_shared: the block loads the strip's 64 x 8 words of A, neighbouring threads on neighbouring words
      for (int gputune_w = threadIdx.y * 64 + threadIdx.x; gputune_w < 512; gputune_w += 64) {
        const long long gputune_i = gputune_w / 8;
        const long long gputune_c = gputune_w % 8;
        if ((gputune_s + gputune_c) + (long long)lo < (long long)hi)
          gputune_A_tile[gputune_i][gputune_c] = A[(long long)hi*gputune_i + 64*(long long)hi*(long long)blockIdx.x + (gputune_s + gputune_c) + (long long)lo];
      }
    }
    __syncthreads();
    for (int j = (lo) + gputune_s; (j < hi) && j - (lo) < gputune_s + 8; ++j) s += gputune_A_tile[threadIdx.x][j - (lo) - gputune_s];
    __syncthreads();
  }
  y[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
