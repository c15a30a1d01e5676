// out = in^T for a rows x cols matrix: one thread per element, reading along a row of `in`
// and writing down a column of `out`.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  __shared__ float gputune_out_tile[32][32 + 1];
  if (x < cols && y < rows) {
    gputune_out_tile[threadIdx.x][threadIdx.y] = in[y * cols + x];
  }
  __syncthreads();
  {  // stage_shared: thread t of the block stores word (t / 32, t % 32) of the tile
    const int gputune_t = threadIdx.y * 32 + threadIdx.x;
    const int gputune_a = gputune_t / 32;
    const int gputune_b = gputune_t % 32;
    if (gputune_a + 32*(long long)blockIdx.x < (long long)cols && gputune_b + 32*(long long)blockIdx.y < (long long)rows)
      out[32*(long long)rows*(long long)blockIdx.x + 32*(long long)blockIdx.y + (rows*gputune_a + gputune_b)] = gputune_out_tile[gputune_a][gputune_b];
  }
}
