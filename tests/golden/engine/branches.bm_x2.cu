// Control flow for the merges: two early returns, a dependent if/else, a loop whose trip count
// depends on the thread, and a loop shared by all threads with a dependent branch inside.
__global__ void branches(const float* in, float* out, int n, int m, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  if (blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x) return;
  int i = (blockIdx.x * 2 + gputune_sub_x) * gputune_block_x + (threadIdx.x % gputune_block_x);
  if (i >= n) return;
  if (i % 3 == 0) {
    out[i] = -1.0f;
    return;
  }
  float v;
  if (in[i] > 0.0f)
    v = in[i];
  else
    v = -in[i];
  int k = 0;
  while (k < m && in[(i + k) % n] > -2.0f) ++k;
  float acc = 0.0f;
  for (int j = 0; j < m; ++j) {
    float w = in[j];
    if (w > 0.0f) {
      acc += w * v;
    } else if (i % 2 == 0) {
      acc -= in[(i + j) % n];
    }
  }
  out[i] = acc + k;
}
