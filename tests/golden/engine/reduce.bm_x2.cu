// Sums of blocks of 256 elements: out[b] = in[256 b] + ... + in[256 b + 255]; the block is 256.
__global__ void reduce(const float* in, float* out, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  const bool gputune_active = !(blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x);
  __shared__ float partial[2][256];
  unsigned int t = (threadIdx.x % gputune_block_x);
  unsigned int i = (blockIdx.x * 2 + gputune_sub_x) * gputune_block_x + (threadIdx.x % gputune_block_x);
  if (gputune_active) partial[gputune_sub_x][t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int stride = gputune_block_x / 2; stride > 0; stride >>= 1) {
    if (gputune_active) { if (t < stride) partial[gputune_sub_x][t] += partial[gputune_sub_x][t + stride]; }
    __syncthreads();
  }
  if (gputune_active) { if (t == 0) out[(blockIdx.x * 2 + gputune_sub_x)] = partial[gputune_sub_x][0]; }
}
