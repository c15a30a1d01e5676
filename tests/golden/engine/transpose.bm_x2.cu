// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  const bool gputune_active = !(blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x);
  __shared__ float tile[2][TILE][TILE + 1];
  int x = (blockIdx.x * 2 + gputune_sub_x) * TILE + (threadIdx.x % gputune_block_x);
  int y = blockIdx.y * TILE + threadIdx.y;
  if (gputune_active) { if (x < width && y < height) tile[gputune_sub_x][threadIdx.y][(threadIdx.x % gputune_block_x)] = in[y * width + x]; }
  __syncthreads();
  if (gputune_active) x = blockIdx.y * TILE + (threadIdx.x % gputune_block_x);
  if (gputune_active) y = (blockIdx.x * 2 + gputune_sub_x) * TILE + threadIdx.y;
  if (gputune_active) { if (x < height && y < width) out[y * height + x] = tile[gputune_sub_x][(threadIdx.x % gputune_block_x)][threadIdx.y]; }
}
