// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the border is copied.
__global__ void stencil(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y_gputune0 = blockIdx.y * (blockDim.y * 2) + (threadIdx.y * 2);
  int y_gputune1 = blockIdx.y * (blockDim.y * 2) + (threadIdx.y * 2 + 1);
  bool gputune_p0 = x >= nx || y_gputune0 >= ny;
  bool gputune_p1 = x >= nx || y_gputune1 >= ny;
  if (!gputune_p0 || !gputune_p1) {
  int at_gputune0 = y_gputune0 * nx + x;
  int at_gputune1 = y_gputune1 * nx + x;
  if (!gputune_p0) { if (x == 0 || y_gputune0 == 0 || x == nx - 1 || y_gputune0 == ny - 1) {
    out[at_gputune0] = in[at_gputune0];
  } else {
    out[at_gputune0] = 0.25f * (in[at_gputune0 - 1] + in[at_gputune0 + 1] + in[at_gputune0 - nx] + in[at_gputune0 + nx]);
  } }
  if (!gputune_p1) { if (x == 0 || y_gputune1 == 0 || x == nx - 1 || y_gputune1 == ny - 1) {
    out[at_gputune1] = in[at_gputune1];
  } else {
    out[at_gputune1] = 0.25f * (in[at_gputune1 - 1] + in[at_gputune1 + 1] + in[at_gputune1 - nx] + in[at_gputune1 + nx]);
  } }
  }
}
