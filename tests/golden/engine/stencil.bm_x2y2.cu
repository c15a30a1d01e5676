// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the border is copied.
__global__ void stencil(const float* in, float* out, int nx, int ny, unsigned int gputune_grid_x, unsigned int gputune_grid_y) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  const unsigned int gputune_block_y = blockDim.y / 2;
  const unsigned int gputune_sub_y = threadIdx.y / gputune_block_y;
  if (blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x || blockIdx.y * 2 + gputune_sub_y >= gputune_grid_y) return;
  int x = (blockIdx.x * 2 + gputune_sub_x) * gputune_block_x + (threadIdx.x % gputune_block_x);
  int y = (blockIdx.y * 2 + gputune_sub_y) * gputune_block_y + (threadIdx.y % gputune_block_y);
  if (x >= nx || y >= ny) return;
  int at = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[at] = in[at];
  } else {
    out[at] = 0.25f * (in[at - 1] + in[at + 1] + in[at - nx] + in[at + nx]);
  }
}
