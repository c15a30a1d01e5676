__global__ void saxpy(float* y, const float* x, float a, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  bool gputune_p0 = blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x;
  bool gputune_p1 = blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x;
  if (!gputune_p0 || !gputune_p1) {
  const int i_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + (threadIdx.x % gputune_block_x);
  const int i_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x + blockDim.x) % gputune_block_x);
  if (!gputune_p0) { if (i_gputune0 < n) {
    y[i_gputune0] = a * x[i_gputune0] + y[i_gputune0];
  } }
  if (!gputune_p1) { if (i_gputune1 < n) {
    y[i_gputune1] = a * x[i_gputune1] + y[i_gputune1];
  } }
  }
}
