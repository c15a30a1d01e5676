// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  const bool gputune_active_gputune0 = !(blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x);
  const bool gputune_active_gputune1 = !(blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x);
  __shared__ float tile[2][TILE][TILE + 1];
  int x_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * TILE + (threadIdx.x % gputune_block_x);
  int x_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * TILE + ((threadIdx.x + blockDim.x) % gputune_block_x);
  int y_gputune0 = blockIdx.y * TILE + threadIdx.y;
  int y_gputune1 = blockIdx.y * TILE + threadIdx.y;
  if (gputune_active_gputune0) { if (x_gputune0 < width && y_gputune0 < height) tile[gputune_sub_x_gputune0][threadIdx.y][(threadIdx.x % gputune_block_x)] = in[y_gputune0 * width + x_gputune0]; }
  if (gputune_active_gputune1) { if (x_gputune1 < width && y_gputune1 < height) tile[gputune_sub_x_gputune1][threadIdx.y][((threadIdx.x + blockDim.x) % gputune_block_x)] = in[y_gputune1 * width + x_gputune1]; }
  __syncthreads();
  if (gputune_active_gputune0) x_gputune0 = blockIdx.y * TILE + (threadIdx.x % gputune_block_x);
  if (gputune_active_gputune1) x_gputune1 = blockIdx.y * TILE + ((threadIdx.x + blockDim.x) % gputune_block_x);
  if (gputune_active_gputune0) y_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * TILE + threadIdx.y;
  if (gputune_active_gputune1) y_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * TILE + threadIdx.y;
  if (gputune_active_gputune0) { if (x_gputune0 < height && y_gputune0 < width) out[y_gputune0 * height + x_gputune0] = tile[gputune_sub_x_gputune0][(threadIdx.x % gputune_block_x)][threadIdx.y]; }
  if (gputune_active_gputune1) { if (x_gputune1 < height && y_gputune1 < width) out[y_gputune1 * height + x_gputune1] = tile[gputune_sub_x_gputune1][((threadIdx.x + blockDim.x) % gputune_block_x)][threadIdx.y]; }
}
