// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x_gputune0 = blockIdx.x * TILE + threadIdx.x;
  int x_gputune1 = blockIdx.x * TILE + (threadIdx.x + blockDim.x);
  int y_gputune0 = blockIdx.y * TILE + threadIdx.y;
  int y_gputune1 = blockIdx.y * TILE + (threadIdx.y + blockDim.y);
  if (x_gputune0 < width && y_gputune0 < height) tile[threadIdx.y][threadIdx.x] = in[y_gputune0 * width + x_gputune0];
  if (x_gputune1 < width && y_gputune0 < height) tile[threadIdx.y][(threadIdx.x + blockDim.x)] = in[y_gputune0 * width + x_gputune1];
  if (x_gputune0 < width && y_gputune1 < height) tile[(threadIdx.y + blockDim.y)][threadIdx.x] = in[y_gputune1 * width + x_gputune0];
  if (x_gputune1 < width && y_gputune1 < height) tile[(threadIdx.y + blockDim.y)][(threadIdx.x + blockDim.x)] = in[y_gputune1 * width + x_gputune1];
  __syncthreads();
  x_gputune0 = blockIdx.y * TILE + threadIdx.x;
  x_gputune1 = blockIdx.y * TILE + (threadIdx.x + blockDim.x);
  y_gputune0 = blockIdx.x * TILE + threadIdx.y;
  y_gputune1 = blockIdx.x * TILE + (threadIdx.y + blockDim.y);
  if (x_gputune0 < height && y_gputune0 < width) out[y_gputune0 * height + x_gputune0] = tile[threadIdx.x][threadIdx.y];
  if (x_gputune1 < height && y_gputune0 < width) out[y_gputune0 * height + x_gputune1] = tile[(threadIdx.x + blockDim.x)][threadIdx.y];
  if (x_gputune0 < height && y_gputune1 < width) out[y_gputune1 * height + x_gputune0] = tile[threadIdx.x][(threadIdx.y + blockDim.y)];
  if (x_gputune1 < height && y_gputune1 < width) out[y_gputune1 * height + x_gputune1] = tile[(threadIdx.x + blockDim.x)][(threadIdx.y + blockDim.y)];
}
