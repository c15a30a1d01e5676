// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the border is copied.
__global__ void stencil(const float* in, float* out, int nx, int ny, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  bool gputune_p0 = blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x;
  bool gputune_p1 = blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x;
  if (!gputune_p0 || !gputune_p1) {
  int x_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + (threadIdx.x % gputune_block_x);
  int x_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x + blockDim.x) % gputune_block_x);
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  bool gputune_p2 = !gputune_p0 && (x_gputune0 >= nx || y >= ny);
  bool gputune_p3 = !gputune_p1 && (x_gputune1 >= nx || y >= ny);
  bool gputune_p4 = !gputune_p0 && !gputune_p2;
  bool gputune_p5 = !gputune_p1 && !gputune_p3;
  if (gputune_p4 || gputune_p5) {
  int at_gputune0 = y * nx + x_gputune0;
  int at_gputune1 = y * nx + x_gputune1;
  if (gputune_p4) { if (x_gputune0 == 0 || y == 0 || x_gputune0 == nx - 1 || y == ny - 1) {
    out[at_gputune0] = in[at_gputune0];
  } else {
    out[at_gputune0] = 0.25f * (in[at_gputune0 - 1] + in[at_gputune0 + 1] + in[at_gputune0 - nx] + in[at_gputune0 + nx]);
  } }
  if (gputune_p5) { if (x_gputune1 == 0 || y == 0 || x_gputune1 == nx - 1 || y == ny - 1) {
    out[at_gputune1] = in[at_gputune1];
  } else {
    out[at_gputune1] = 0.25f * (in[at_gputune1 - 1] + in[at_gputune1 + 1] + in[at_gputune1 - nx] + in[at_gputune1 + nx]);
  } }
  }
  }
}
