// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height, unsigned int gputune_grid_y) {
  const unsigned int gputune_block_y = blockDim.y / 2;
  const unsigned int gputune_sub_y = threadIdx.y / gputune_block_y;
  const bool gputune_active = !(blockIdx.y * 2 + gputune_sub_y >= gputune_grid_y);
  __shared__ float tile[2][TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = (blockIdx.y * 2 + gputune_sub_y) * TILE + (threadIdx.y % gputune_block_y);
  if (gputune_active) { if (x < width && y < height) tile[gputune_sub_y][(threadIdx.y % gputune_block_y)][threadIdx.x] = in[y * width + x]; }
  __syncthreads();
  if (gputune_active) x = (blockIdx.y * 2 + gputune_sub_y) * TILE + threadIdx.x;
  if (gputune_active) y = blockIdx.x * TILE + (threadIdx.y % gputune_block_y);
  if (gputune_active) { if (x < height && y < width) out[y * height + x] = tile[gputune_sub_y][threadIdx.x][(threadIdx.y % gputune_block_y)]; }
}
