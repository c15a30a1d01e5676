__global__ void vector_add(const float* a, const float* b, float* c, int n, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  if (blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x) return;
  int i = (blockIdx.x * 2 + gputune_sub_x) * gputune_block_x + (threadIdx.x % gputune_block_x);
  if (i < n) c[i] = a[i] + b[i];
}
