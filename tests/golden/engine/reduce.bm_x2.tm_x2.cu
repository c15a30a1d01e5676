// Sums of blocks of 256 elements: out[b] = in[256 b] + ... + in[256 b + 255]; the block is 256.
__global__ void reduce(const float* in, float* out, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  const bool gputune_active_gputune0 = !(blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x);
  const bool gputune_active_gputune1 = !(blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x);
  __shared__ float partial[2][256];
  unsigned int t_gputune0 = (threadIdx.x % gputune_block_x);
  unsigned int t_gputune1 = ((threadIdx.x + blockDim.x) % gputune_block_x);
  unsigned int i_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + (threadIdx.x % gputune_block_x);
  unsigned int i_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x + blockDim.x) % gputune_block_x);
  if (gputune_active_gputune0) partial[gputune_sub_x_gputune0][t_gputune0] = i_gputune0 < n ? in[i_gputune0] : 0.0f;
  if (gputune_active_gputune1) partial[gputune_sub_x_gputune1][t_gputune1] = i_gputune1 < n ? in[i_gputune1] : 0.0f;
  __syncthreads();
  for (unsigned int stride = gputune_block_x / 2; stride > 0; stride >>= 1) {
    if (gputune_active_gputune0) { if (t_gputune0 < stride) partial[gputune_sub_x_gputune0][t_gputune0] += partial[gputune_sub_x_gputune0][t_gputune0 + stride]; }
    if (gputune_active_gputune1) { if (t_gputune1 < stride) partial[gputune_sub_x_gputune1][t_gputune1] += partial[gputune_sub_x_gputune1][t_gputune1 + stride]; }
    __syncthreads();
  }
  if (gputune_active_gputune0) { if (t_gputune0 == 0) out[(blockIdx.x * 2 + gputune_sub_x_gputune0)] = partial[gputune_sub_x_gputune0][0]; }
  if (gputune_active_gputune1) { if (t_gputune1 == 0) out[(blockIdx.x * 2 + gputune_sub_x_gputune1)] = partial[gputune_sub_x_gputune1][0]; }
}
