// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the border is copied.
__global__ void stencil(const float* in, float* out, int nx, int ny) {
  int x_gputune0 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4);
  int x_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 1);
  int x_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 2);
  int x_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 3);
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  bool gputune_p0 = x_gputune0 >= nx || y >= ny;
  bool gputune_p1 = x_gputune1 >= nx || y >= ny;
  bool gputune_p2 = x_gputune2 >= nx || y >= ny;
  bool gputune_p3 = x_gputune3 >= nx || y >= ny;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3) {
  int at_gputune0 = y * nx + x_gputune0;
  int at_gputune1 = y * nx + x_gputune1;
  int at_gputune2 = y * nx + x_gputune2;
  int at_gputune3 = y * nx + x_gputune3;
  if (!gputune_p0) { if (x_gputune0 == 0 || y == 0 || x_gputune0 == nx - 1 || y == ny - 1) {
    out[at_gputune0] = in[at_gputune0];
  } else {
    out[at_gputune0] = 0.25f * (in[at_gputune0 - 1] + in[at_gputune0 + 1] + in[at_gputune0 - nx] + in[at_gputune0 + nx]);
  } }
  if (!gputune_p1) { if (x_gputune1 == 0 || y == 0 || x_gputune1 == nx - 1 || y == ny - 1) {
    out[at_gputune1] = in[at_gputune1];
  } else {
    out[at_gputune1] = 0.25f * (in[at_gputune1 - 1] + in[at_gputune1 + 1] + in[at_gputune1 - nx] + in[at_gputune1 + nx]);
  } }
  if (!gputune_p2) { if (x_gputune2 == 0 || y == 0 || x_gputune2 == nx - 1 || y == ny - 1) {
    out[at_gputune2] = in[at_gputune2];
  } else {
    out[at_gputune2] = 0.25f * (in[at_gputune2 - 1] + in[at_gputune2 + 1] + in[at_gputune2 - nx] + in[at_gputune2 + nx]);
  } }
  if (!gputune_p3) { if (x_gputune3 == 0 || y == 0 || x_gputune3 == nx - 1 || y == ny - 1) {
    out[at_gputune3] = in[at_gputune3];
  } else {
    out[at_gputune3] = 0.25f * (in[at_gputune3 - 1] + in[at_gputune3 + 1] + in[at_gputune3 - nx] + in[at_gputune3 + nx]);
  } }
  }
}
