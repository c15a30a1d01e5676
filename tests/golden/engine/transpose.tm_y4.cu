// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y_gputune0 = blockIdx.y * TILE + threadIdx.y;
  int y_gputune1 = blockIdx.y * TILE + (threadIdx.y + blockDim.y);
  int y_gputune2 = blockIdx.y * TILE + (threadIdx.y + 2 * blockDim.y);
  int y_gputune3 = blockIdx.y * TILE + (threadIdx.y + 3 * blockDim.y);
  if (x < width && y_gputune0 < height) tile[threadIdx.y][threadIdx.x] = in[y_gputune0 * width + x];
  if (x < width && y_gputune1 < height) tile[(threadIdx.y + blockDim.y)][threadIdx.x] = in[y_gputune1 * width + x];
  if (x < width && y_gputune2 < height) tile[(threadIdx.y + 2 * blockDim.y)][threadIdx.x] = in[y_gputune2 * width + x];
  if (x < width && y_gputune3 < height) tile[(threadIdx.y + 3 * blockDim.y)][threadIdx.x] = in[y_gputune3 * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y_gputune0 = blockIdx.x * TILE + threadIdx.y;
  y_gputune1 = blockIdx.x * TILE + (threadIdx.y + blockDim.y);
  y_gputune2 = blockIdx.x * TILE + (threadIdx.y + 2 * blockDim.y);
  y_gputune3 = blockIdx.x * TILE + (threadIdx.y + 3 * blockDim.y);
  if (x < height && y_gputune0 < width) out[y_gputune0 * height + x] = tile[threadIdx.x][threadIdx.y];
  if (x < height && y_gputune1 < width) out[y_gputune1 * height + x] = tile[threadIdx.x][(threadIdx.y + blockDim.y)];
  if (x < height && y_gputune2 < width) out[y_gputune2 * height + x] = tile[threadIdx.x][(threadIdx.y + 2 * blockDim.y)];
  if (x < height && y_gputune3 < width) out[y_gputune3 * height + x] = tile[threadIdx.x][(threadIdx.y + 3 * blockDim.y)];
}
