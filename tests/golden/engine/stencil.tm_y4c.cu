// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the border is copied.
__global__ void stencil(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y_gputune0 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y * 4);
  int y_gputune1 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y * 4 + 1);
  int y_gputune2 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y * 4 + 2);
  int y_gputune3 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y * 4 + 3);
  bool gputune_p0 = x >= nx || y_gputune0 >= ny;
  bool gputune_p1 = x >= nx || y_gputune1 >= ny;
  bool gputune_p2 = x >= nx || y_gputune2 >= ny;
  bool gputune_p3 = x >= nx || y_gputune3 >= ny;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3) {
  int at_gputune0 = y_gputune0 * nx + x;
  int at_gputune1 = y_gputune1 * nx + x;
  int at_gputune2 = y_gputune2 * nx + x;
  int at_gputune3 = y_gputune3 * nx + x;
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
  if (!gputune_p2) { if (x == 0 || y_gputune2 == 0 || x == nx - 1 || y_gputune2 == ny - 1) {
    out[at_gputune2] = in[at_gputune2];
  } else {
    out[at_gputune2] = 0.25f * (in[at_gputune2 - 1] + in[at_gputune2 + 1] + in[at_gputune2 - nx] + in[at_gputune2 + nx]);
  } }
  if (!gputune_p3) { if (x == 0 || y_gputune3 == 0 || x == nx - 1 || y_gputune3 == ny - 1) {
    out[at_gputune3] = in[at_gputune3];
  } else {
    out[at_gputune3] = 0.25f * (in[at_gputune3 - 1] + in[at_gputune3 + 1] + in[at_gputune3 - nx] + in[at_gputune3 + nx]);
  } }
  }
}
