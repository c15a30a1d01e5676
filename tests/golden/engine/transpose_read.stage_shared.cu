// out = in^T, reading down a column of `in`.
__global__ void transpose_read(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  __shared__ float gputune_in_tile[16][16];
  {  // stage_shared: thread t of the block loads word (t / 16, t % 16) of the tile
    const int gputune_t = threadIdx.y * 16 + threadIdx.x;
    const int gputune_a = gputune_t / 16;
    const int gputune_b = gputune_t % 16;
    if (gputune_a + 16*(long long)blockIdx.x < (long long)rows && gputune_b + 16*(long long)blockIdx.y < (long long)cols)
      gputune_in_tile[gputune_a][gputune_b] = in[16*(long long)cols*(long long)blockIdx.x + 16*(long long)blockIdx.y + (cols*gputune_a + gputune_b)];
  }
  __syncthreads();
  if (x < rows && y < cols)
    out[y * rows + x] = gputune_in_tile[threadIdx.x][threadIdx.y];
}
