// C = A * B, one thread per element of C (row-major; A is m x k, B is k x n).
// A first version: each thread walks a row of A and a column of B.
__global__ void matmul(float* C, const float* A, const float* B, int m, int n, int k, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = (threadIdx.x * 2) / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x * 2 + 1) / gputune_block_x;
  const bool gputune_active_gputune0 = !(blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x);
  const bool gputune_active_gputune1 = !(blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x);
  int col_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + ((threadIdx.x * 2) % gputune_block_x);
  int col_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x * 2 + 1) % gputune_block_x);
  int row_gputune0 = blockIdx.y * (blockDim.y * 2) + (threadIdx.y * 2);
  int row_gputune1 = blockIdx.y * (blockDim.y * 2) + (threadIdx.y * 2 + 1);
  __shared__ float gputune_A_tile[32][16];
  __shared__ float gputune_B_tile[16][64];
  {  // stage_shared: every thread runs the strips' barriers; gputune_guard keeps the condition
    const bool gputune_guard_gputune0 = row_gputune0 < m && col_gputune0 < n;
    const bool gputune_guard_gputune1 = row_gputune0 < m && col_gputune1 < n;
    const bool gputune_guard_gputune2 = row_gputune1 < m && col_gputune0 < n;
    const bool gputune_guard_gputune3 = row_gputune1 < m && col_gputune1 < n;
    float sum_gputune0 = 0.0f;
    float sum_gputune1 = 0.0f;
    float sum_gputune2 = 0.0f;
    float sum_gputune3 = 0.0f;
    for (int gputune_s = 0; gputune_s < (long long)k; gputune_s += 16) {
      {  // stage_shared: the block's 512 threads load the strip's 32 x 16 words of A (1 each), neighbouring threads on neighbouring words, zero outside A
        const int gputune_block_thread = threadIdx.x + 32 * threadIdx.y;
        const int gputune_strip = gputune_s;
        #pragma unroll
        for (int gputune_r = 0; gputune_r < 1; ++gputune_r) {
          const int gputune_w = gputune_block_thread + 512 * gputune_r;
          const int gputune_i = gputune_w / 16;
          const int gputune_c = gputune_w % 16;
          gputune_A_tile[gputune_i][gputune_c] = gputune_i + 32*(long long)blockIdx.y < (long long)m && (gputune_strip + gputune_c) < (long long)k ? A[(long long)k*gputune_i + 32*(long long)k*(long long)blockIdx.y + (gputune_strip + gputune_c)] : float();
        }
      }
      {  // stage_shared: the block's 512 threads load the strip's 16 x 64 words of B (2 each), neighbouring threads on neighbouring words, zero outside B
        const int gputune_block_thread = threadIdx.x + 32 * threadIdx.y;
        const int gputune_strip = gputune_s;
        #pragma unroll
        for (int gputune_r = 0; gputune_r < 2; ++gputune_r) {
          const int gputune_w = gputune_block_thread + 512 * gputune_r;
          const int gputune_c = gputune_w / 64;
          const int gputune_i = gputune_w % 64;
          gputune_B_tile[gputune_c][gputune_i] = gputune_i + 32*(2 * (long long)blockIdx.x) < (long long)n && (gputune_strip + gputune_c) < (long long)k ? B[gputune_i + 32*(2 * (long long)blockIdx.x) + (long long)n*(gputune_strip + gputune_c)] : float();
        }
      }
      __syncthreads();
      bool gputune_p0 = gputune_active_gputune0;
      bool gputune_p1 = gputune_active_gputune1;
      if (gputune_p0 || gputune_p1) { if ((gputune_s + 15) < (long long)k) {  // a whole strip: its iterations unrolled
      #pragma unroll
      for (int i = gputune_s; i < gputune_s + 16; i++) {
      float gputune_t0 = gputune_A_tile[(threadIdx.y * 2)][i - gputune_s];
      float gputune_t1 = gputune_A_tile[(threadIdx.y * 2 + 1)][i - gputune_s];
      float gputune_t2 = gputune_p0 ? (gputune_B_tile[i - gputune_s][(((threadIdx.x * 2) % gputune_block_x) + 32 * ((blockIdx.x * 2 + gputune_sub_x_gputune0) % 2))]) : (float)0;
      float gputune_t3 = gputune_p1 ? (gputune_B_tile[i - gputune_s][(((threadIdx.x * 2 + 1) % gputune_block_x) + 32 * ((blockIdx.x * 2 + gputune_sub_x_gputune1) % 2))]) : (float)0;
      if (gputune_p0) sum_gputune0 += gputune_t0 * gputune_t2;
      if (gputune_p1) sum_gputune1 += gputune_t0 * gputune_t3;
      if (gputune_p0) sum_gputune2 += gputune_t1 * gputune_t2;
      if (gputune_p1) sum_gputune3 += gputune_t1 * gputune_t3;
    }
      } else {
        for (int i = gputune_s; (i < k) && i < gputune_s + 16; i++) {
      float gputune_t4 = gputune_A_tile[(threadIdx.y * 2)][i - gputune_s];
      float gputune_t5 = gputune_A_tile[(threadIdx.y * 2 + 1)][i - gputune_s];
      float gputune_t6 = gputune_p0 ? (gputune_B_tile[i - gputune_s][(((threadIdx.x * 2) % gputune_block_x) + 32 * ((blockIdx.x * 2 + gputune_sub_x_gputune0) % 2))]) : (float)0;
      float gputune_t7 = gputune_p1 ? (gputune_B_tile[i - gputune_s][(((threadIdx.x * 2 + 1) % gputune_block_x) + 32 * ((blockIdx.x * 2 + gputune_sub_x_gputune1) % 2))]) : (float)0;
      if (gputune_p0) sum_gputune0 += gputune_t4 * gputune_t6;
      if (gputune_p1) sum_gputune1 += gputune_t4 * gputune_t7;
      if (gputune_p0) sum_gputune2 += gputune_t5 * gputune_t6;
      if (gputune_p1) sum_gputune3 += gputune_t5 * gputune_t7;
    }
      } }
      __syncthreads();
    }
    if (gputune_active_gputune0) { if (gputune_guard_gputune0) {  // the statements after the loop
    C[row_gputune0 * n + col_gputune0] = sum_gputune0;
    } }
    if (gputune_active_gputune1) { if (gputune_guard_gputune1) {  // the statements after the loop
    C[row_gputune0 * n + col_gputune1] = sum_gputune1;
    } }
    if (gputune_active_gputune0) { if (gputune_guard_gputune2) {  // the statements after the loop
    C[row_gputune1 * n + col_gputune0] = sum_gputune2;
    } }
    if (gputune_active_gputune1) { if (gputune_guard_gputune3) {  // the statements after the loop
    C[row_gputune1 * n + col_gputune1] = sum_gputune3;
    } }
  }
}
