// Control flow for the merges: two early returns, a dependent if/else, a loop whose trip count
// depends on the thread, and a loop shared by all threads with a dependent branch inside.
__global__ void branches(const float* in, float* out, int n, int m) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 4) + threadIdx.x;
  int i_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + blockDim.x);
  int i_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 2 * blockDim.x);
  int i_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 3 * blockDim.x);
  bool gputune_p0 = i_gputune0 >= n;
  bool gputune_p1 = i_gputune1 >= n;
  bool gputune_p2 = i_gputune2 >= n;
  bool gputune_p3 = i_gputune3 >= n;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3) {
  bool gputune_p4 = !gputune_p0 && (i_gputune0 % 3 == 0);
  bool gputune_p5 = !gputune_p1 && (i_gputune1 % 3 == 0);
  bool gputune_p6 = !gputune_p2 && (i_gputune2 % 3 == 0);
  bool gputune_p7 = !gputune_p3 && (i_gputune3 % 3 == 0);
  if (gputune_p4 || gputune_p5 || gputune_p6 || gputune_p7) {
    if (gputune_p4) out[i_gputune0] = -1.0f;
    if (gputune_p5) out[i_gputune1] = -1.0f;
    if (gputune_p6) out[i_gputune2] = -1.0f;
    if (gputune_p7) out[i_gputune3] = -1.0f;
  }
  bool gputune_p8 = !gputune_p0 && !gputune_p4;
  bool gputune_p9 = !gputune_p1 && !gputune_p5;
  bool gputune_p10 = !gputune_p2 && !gputune_p6;
  bool gputune_p11 = !gputune_p3 && !gputune_p7;
  if (gputune_p8 || gputune_p9 || gputune_p10 || gputune_p11) {
  float v_gputune0;
  float v_gputune1;
  float v_gputune2;
  float v_gputune3;
  if (gputune_p8) { if (in[i_gputune0] > 0.0f)
    v_gputune0 = in[i_gputune0];
  else
    v_gputune0 = -in[i_gputune0]; }
  if (gputune_p9) { if (in[i_gputune1] > 0.0f)
    v_gputune1 = in[i_gputune1];
  else
    v_gputune1 = -in[i_gputune1]; }
  if (gputune_p10) { if (in[i_gputune2] > 0.0f)
    v_gputune2 = in[i_gputune2];
  else
    v_gputune2 = -in[i_gputune2]; }
  if (gputune_p11) { if (in[i_gputune3] > 0.0f)
    v_gputune3 = in[i_gputune3];
  else
    v_gputune3 = -in[i_gputune3]; }
  int k_gputune0 = 0;
  int k_gputune1 = 0;
  int k_gputune2 = 0;
  int k_gputune3 = 0;
  if (gputune_p8) while (k_gputune0 < m && in[(i_gputune0 + k_gputune0) % n] > -2.0f) ++k_gputune0;
  if (gputune_p9) while (k_gputune1 < m && in[(i_gputune1 + k_gputune1) % n] > -2.0f) ++k_gputune1;
  if (gputune_p10) while (k_gputune2 < m && in[(i_gputune2 + k_gputune2) % n] > -2.0f) ++k_gputune2;
  if (gputune_p11) while (k_gputune3 < m && in[(i_gputune3 + k_gputune3) % n] > -2.0f) ++k_gputune3;
  float acc_gputune0 = 0.0f;
  float acc_gputune1 = 0.0f;
  float acc_gputune2 = 0.0f;
  float acc_gputune3 = 0.0f;
  for (int j = 0; j < m; ++j) {
    float w = in[j];
    if (w > 0.0f) {
      acc_gputune0 += w * v_gputune0;
      acc_gputune1 += w * v_gputune1;
      acc_gputune2 += w * v_gputune2;
      acc_gputune3 += w * v_gputune3;
    } else {
      if (gputune_p8) { if (i_gputune0 % 2 == 0) {
      acc_gputune0 -= in[(i_gputune0 + j) % n];
    } }
      if (gputune_p9) { if (i_gputune1 % 2 == 0) {
      acc_gputune1 -= in[(i_gputune1 + j) % n];
    } }
      if (gputune_p10) { if (i_gputune2 % 2 == 0) {
      acc_gputune2 -= in[(i_gputune2 + j) % n];
    } }
      if (gputune_p11) { if (i_gputune3 % 2 == 0) {
      acc_gputune3 -= in[(i_gputune3 + j) % n];
    } }
    }
  }
  if (gputune_p8) out[i_gputune0] = acc_gputune0 + k_gputune0;
  if (gputune_p9) out[i_gputune1] = acc_gputune1 + k_gputune1;
  if (gputune_p10) out[i_gputune2] = acc_gputune2 + k_gputune2;
  if (gputune_p11) out[i_gputune3] = acc_gputune3 + k_gputune3;
  }
  }
}
