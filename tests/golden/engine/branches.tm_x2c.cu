// Control flow for the merges: two early returns, a dependent if/else, a loop whose trip count
// depends on the thread, and a loop shared by all threads with a dependent branch inside.
__global__ void branches(const float* in, float* out, int n, int m) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2);
  int i_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2 + 1);
  bool gputune_p0 = i_gputune0 >= n;
  bool gputune_p1 = i_gputune1 >= n;
  if (!gputune_p0 || !gputune_p1) {
  bool gputune_p2 = !gputune_p0 && (i_gputune0 % 3 == 0);
  bool gputune_p3 = !gputune_p1 && (i_gputune1 % 3 == 0);
  if (gputune_p2 || gputune_p3) {
    if (gputune_p2) out[i_gputune0] = -1.0f;
    if (gputune_p3) out[i_gputune1] = -1.0f;
  }
  bool gputune_p4 = !gputune_p0 && !gputune_p2;
  bool gputune_p5 = !gputune_p1 && !gputune_p3;
  if (gputune_p4 || gputune_p5) {
  float v_gputune0;
  float v_gputune1;
  if (gputune_p4) { if (in[i_gputune0] > 0.0f)
    v_gputune0 = in[i_gputune0];
  else
    v_gputune0 = -in[i_gputune0]; }
  if (gputune_p5) { if (in[i_gputune1] > 0.0f)
    v_gputune1 = in[i_gputune1];
  else
    v_gputune1 = -in[i_gputune1]; }
  int k_gputune0 = 0;
  int k_gputune1 = 0;
  if (gputune_p4) while (k_gputune0 < m && in[(i_gputune0 + k_gputune0) % n] > -2.0f) ++k_gputune0;
  if (gputune_p5) while (k_gputune1 < m && in[(i_gputune1 + k_gputune1) % n] > -2.0f) ++k_gputune1;
  float acc_gputune0 = 0.0f;
  float acc_gputune1 = 0.0f;
  for (int j = 0; j < m; ++j) {
    float w = in[j];
    if (w > 0.0f) {
      acc_gputune0 += w * v_gputune0;
      acc_gputune1 += w * v_gputune1;
    } else {
      if (gputune_p4) { if (i_gputune0 % 2 == 0) {
      acc_gputune0 -= in[(i_gputune0 + j) % n];
    } }
      if (gputune_p5) { if (i_gputune1 % 2 == 0) {
      acc_gputune1 -= in[(i_gputune1 + j) % n];
    } }
    }
  }
  if (gputune_p4) out[i_gputune0] = acc_gputune0 + k_gputune0;
  if (gputune_p5) out[i_gputune1] = acc_gputune1 + k_gputune1;
  }
  }
}
