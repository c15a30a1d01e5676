// out = in^T for a height x width matrix, through a 32 x 32 shared tile; the block is 32 x 32.
#define TILE 32
__global__ void transpose(const float* in, float* out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x_gputune0 = blockIdx.x * TILE + (threadIdx.x * 4);
  int x_gputune1 = blockIdx.x * TILE + (threadIdx.x * 4 + 1);
  int x_gputune2 = blockIdx.x * TILE + (threadIdx.x * 4 + 2);
  int x_gputune3 = blockIdx.x * TILE + (threadIdx.x * 4 + 3);
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x_gputune0 < width && y < height) tile[threadIdx.y][(threadIdx.x * 4)] = in[y * width + x_gputune0];
  if (x_gputune1 < width && y < height) tile[threadIdx.y][(threadIdx.x * 4 + 1)] = in[y * width + x_gputune1];
  if (x_gputune2 < width && y < height) tile[threadIdx.y][(threadIdx.x * 4 + 2)] = in[y * width + x_gputune2];
  if (x_gputune3 < width && y < height) tile[threadIdx.y][(threadIdx.x * 4 + 3)] = in[y * width + x_gputune3];
  __syncthreads();
  x_gputune0 = blockIdx.y * TILE + (threadIdx.x * 4);
  x_gputune1 = blockIdx.y * TILE + (threadIdx.x * 4 + 1);
  x_gputune2 = blockIdx.y * TILE + (threadIdx.x * 4 + 2);
  x_gputune3 = blockIdx.y * TILE + (threadIdx.x * 4 + 3);
  y = blockIdx.x * TILE + threadIdx.y;
  if (x_gputune0 < height && y < width) out[y * height + x_gputune0] = tile[(threadIdx.x * 4)][threadIdx.y];
  if (x_gputune1 < height && y < width) out[y * height + x_gputune1] = tile[(threadIdx.x * 4 + 1)][threadIdx.y];
  if (x_gputune2 < height && y < width) out[y * height + x_gputune2] = tile[(threadIdx.x * 4 + 2)][threadIdx.y];
  if (x_gputune3 < height && y < width) out[y * height + x_gputune3] = tile[(threadIdx.x * 4 + 3)][threadIdx.y];
}
