// Control flow for the merges: two early returns, a dependent if/else, a loop whose trip count
// depends on the thread, and a loop shared by all threads with a dependent branch inside.
__global__ void branches(const float* in, float* out, int n, int m, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  bool gputune_p0 = blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x;
  bool gputune_p1 = blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x;
  if (!gputune_p0 || !gputune_p1) {
  int i_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + (threadIdx.x % gputune_block_x);
  int i_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x + blockDim.x) % gputune_block_x);
  bool gputune_p2 = !gputune_p0 && (i_gputune0 >= n);
  bool gputune_p3 = !gputune_p1 && (i_gputune1 >= n);
  bool gputune_p4 = !gputune_p0 && !gputune_p2;
  bool gputune_p5 = !gputune_p1 && !gputune_p3;
  if (gputune_p4 || gputune_p5) {
  bool gputune_p6 = gputune_p4 && (i_gputune0 % 3 == 0);
  bool gputune_p7 = gputune_p5 && (i_gputune1 % 3 == 0);
  if (gputune_p6 || gputune_p7) {
    if (gputune_p6) out[i_gputune0] = -1.0f;
    if (gputune_p7) out[i_gputune1] = -1.0f;
  }
  bool gputune_p8 = gputune_p4 && !gputune_p6;
  bool gputune_p9 = gputune_p5 && !gputune_p7;
  if (gputune_p8 || gputune_p9) {
  float v_gputune0;
  float v_gputune1;
  if (gputune_p8) { if (in[i_gputune0] > 0.0f)
    v_gputune0 = in[i_gputune0];
  else
    v_gputune0 = -in[i_gputune0]; }
  if (gputune_p9) { if (in[i_gputune1] > 0.0f)
    v_gputune1 = in[i_gputune1];
  else
    v_gputune1 = -in[i_gputune1]; }
  int k_gputune0 = 0;
  int k_gputune1 = 0;
  if (gputune_p8) while (k_gputune0 < m && in[(i_gputune0 + k_gputune0) % n] > -2.0f) ++k_gputune0;
  if (gputune_p9) while (k_gputune1 < m && in[(i_gputune1 + k_gputune1) % n] > -2.0f) ++k_gputune1;
  float acc_gputune0 = 0.0f;
  float acc_gputune1 = 0.0f;
  for (int j = 0; j < m; ++j) {
    float w = in[j];
    if (w > 0.0f) {
      acc_gputune0 += w * v_gputune0;
      acc_gputune1 += w * v_gputune1;
    } else {
      if (gputune_p8) { if (i_gputune0 % 2 == 0) {
      acc_gputune0 -= in[(i_gputune0 + j) % n];
    } }
      if (gputune_p9) { if (i_gputune1 % 2 == 0) {
      acc_gputune1 -= in[(i_gputune1 + j) % n];
    } }
    }
  }
  if (gputune_p8) out[i_gputune0] = acc_gputune0 + k_gputune0;
  if (gputune_p9) out[i_gputune1] = acc_gputune1 + k_gputune1;
  }
  }
  }
}
