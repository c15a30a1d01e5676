// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  const bool gputune_active = !(blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x);
  __shared__ float tile[2][TILE][TILE + 1];
  int x = (blockIdx.x * 2 + gputune_sub_x) * TILE + (threadIdx.x % gputune_block_x);
  int y_gputune0 = blockIdx.y * TILE + threadIdx.y;
  int y_gputune1 = blockIdx.y * TILE + (threadIdx.y + blockDim.y);
  int y_gputune2 = blockIdx.y * TILE + (threadIdx.y + 2 * blockDim.y);
  int y_gputune3 = blockIdx.y * TILE + (threadIdx.y + 3 * blockDim.y);
  if (gputune_active) { if (x < width && y_gputune0 < height) tile[gputune_sub_x][threadIdx.y][(threadIdx.x % gputune_block_x)] = in[y_gputune0 * width + x];
  if (x < width && y_gputune1 < height) tile[gputune_sub_x][(threadIdx.y + blockDim.y)][(threadIdx.x % gputune_block_x)] = in[y_gputune1 * width + x];
  if (x < width && y_gputune2 < height) tile[gputune_sub_x][(threadIdx.y + 2 * blockDim.y)][(threadIdx.x % gputune_block_x)] = in[y_gputune2 * width + x];
  if (x < width && y_gputune3 < height) tile[gputune_sub_x][(threadIdx.y + 3 * blockDim.y)][(threadIdx.x % gputune_block_x)] = in[y_gputune3 * width + x]; }
  __syncthreads();
  if (gputune_active) x = blockIdx.y * TILE + (threadIdx.x % gputune_block_x);
  if (gputune_active) {
    y_gputune0 = (blockIdx.x * 2 + gputune_sub_x) * TILE + threadIdx.y;
    y_gputune1 = (blockIdx.x * 2 + gputune_sub_x) * TILE + (threadIdx.y + blockDim.y);
    y_gputune2 = (blockIdx.x * 2 + gputune_sub_x) * TILE + (threadIdx.y + 2 * blockDim.y);
    y_gputune3 = (blockIdx.x * 2 + gputune_sub_x) * TILE + (threadIdx.y + 3 * blockDim.y);
  }
  if (gputune_active) { if (x < height && y_gputune0 < width) out[y_gputune0 * height + x] = tile[gputune_sub_x][(threadIdx.x % gputune_block_x)][threadIdx.y];
  if (x < height && y_gputune1 < width) out[y_gputune1 * height + x] = tile[gputune_sub_x][(threadIdx.x % gputune_block_x)][(threadIdx.y + blockDim.y)];
  if (x < height && y_gputune2 < width) out[y_gputune2 * height + x] = tile[gputune_sub_x][(threadIdx.x % gputune_block_x)][(threadIdx.y + 2 * blockDim.y)];
  if (x < height && y_gputune3 < width) out[y_gputune3 * height + x] = tile[gputune_sub_x][(threadIdx.x % gputune_block_x)][(threadIdx.y + 3 * blockDim.y)]; }
}
