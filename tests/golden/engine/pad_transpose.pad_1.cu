// A tiled transpose: a 16 x 16 shared tile, written by rows and read by columns after a
// barrier, so a warp's reads fall into one bank unless the rows are padded.
__global__ void transpose_tiled(float* out, const float* in, int width, int height) {
  __shared__ float tile[16][16 + 1];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * 16 + threadIdx.x;
  y = blockIdx.x * 16 + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
