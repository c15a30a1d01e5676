// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the border is copied.
__global__ void stencil(const float* in, float* out, int nx, int ny) {
  int x_gputune0 = blockIdx.x * (blockDim.x * 4) + threadIdx.x;
  int x_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + blockDim.x);
  int x_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 2 * blockDim.x);
  int x_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 3 * blockDim.x);
  int y_gputune0 = blockIdx.y * (blockDim.y * 4) + threadIdx.y;
  int y_gputune1 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y + blockDim.y);
  int y_gputune2 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y + 2 * blockDim.y);
  int y_gputune3 = blockIdx.y * (blockDim.y * 4) + (threadIdx.y + 3 * blockDim.y);
  bool gputune_p0 = x_gputune0 >= nx || y_gputune0 >= ny;
  bool gputune_p1 = x_gputune1 >= nx || y_gputune0 >= ny;
  bool gputune_p2 = x_gputune2 >= nx || y_gputune0 >= ny;
  bool gputune_p3 = x_gputune3 >= nx || y_gputune0 >= ny;
  bool gputune_p4 = x_gputune0 >= nx || y_gputune1 >= ny;
  bool gputune_p5 = x_gputune1 >= nx || y_gputune1 >= ny;
  bool gputune_p6 = x_gputune2 >= nx || y_gputune1 >= ny;
  bool gputune_p7 = x_gputune3 >= nx || y_gputune1 >= ny;
  bool gputune_p8 = x_gputune0 >= nx || y_gputune2 >= ny;
  bool gputune_p9 = x_gputune1 >= nx || y_gputune2 >= ny;
  bool gputune_p10 = x_gputune2 >= nx || y_gputune2 >= ny;
  bool gputune_p11 = x_gputune3 >= nx || y_gputune2 >= ny;
  bool gputune_p12 = x_gputune0 >= nx || y_gputune3 >= ny;
  bool gputune_p13 = x_gputune1 >= nx || y_gputune3 >= ny;
  bool gputune_p14 = x_gputune2 >= nx || y_gputune3 >= ny;
  bool gputune_p15 = x_gputune3 >= nx || y_gputune3 >= ny;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3 || !gputune_p4 || !gputune_p5 || !gputune_p6 || !gputune_p7 || !gputune_p8 || !gputune_p9 || !gputune_p10 || !gputune_p11 || !gputune_p12 || !gputune_p13 || !gputune_p14 || !gputune_p15) {
  int at_gputune0 = y_gputune0 * nx + x_gputune0;
  int at_gputune1 = y_gputune0 * nx + x_gputune1;
  int at_gputune2 = y_gputune0 * nx + x_gputune2;
  int at_gputune3 = y_gputune0 * nx + x_gputune3;
  int at_gputune4 = y_gputune1 * nx + x_gputune0;
  int at_gputune5 = y_gputune1 * nx + x_gputune1;
  int at_gputune6 = y_gputune1 * nx + x_gputune2;
  int at_gputune7 = y_gputune1 * nx + x_gputune3;
  int at_gputune8 = y_gputune2 * nx + x_gputune0;
  int at_gputune9 = y_gputune2 * nx + x_gputune1;
  int at_gputune10 = y_gputune2 * nx + x_gputune2;
  int at_gputune11 = y_gputune2 * nx + x_gputune3;
  int at_gputune12 = y_gputune3 * nx + x_gputune0;
  int at_gputune13 = y_gputune3 * nx + x_gputune1;
  int at_gputune14 = y_gputune3 * nx + x_gputune2;
  int at_gputune15 = y_gputune3 * nx + x_gputune3;
  if (!gputune_p0) { if (x_gputune0 == 0 || y_gputune0 == 0 || x_gputune0 == nx - 1 || y_gputune0 == ny - 1) {
    out[at_gputune0] = in[at_gputune0];
  } else {
    out[at_gputune0] = 0.25f * (in[at_gputune0 - 1] + in[at_gputune0 + 1] + in[at_gputune0 - nx] + in[at_gputune0 + nx]);
  } }
  if (!gputune_p1) { if (x_gputune1 == 0 || y_gputune0 == 0 || x_gputune1 == nx - 1 || y_gputune0 == ny - 1) {
    out[at_gputune1] = in[at_gputune1];
  } else {
    out[at_gputune1] = 0.25f * (in[at_gputune1 - 1] + in[at_gputune1 + 1] + in[at_gputune1 - nx] + in[at_gputune1 + nx]);
  } }
  if (!gputune_p2) { if (x_gputune2 == 0 || y_gputune0 == 0 || x_gputune2 == nx - 1 || y_gputune0 == ny - 1) {
    out[at_gputune2] = in[at_gputune2];
  } else {
    out[at_gputune2] = 0.25f * (in[at_gputune2 - 1] + in[at_gputune2 + 1] + in[at_gputune2 - nx] + in[at_gputune2 + nx]);
  } }
  if (!gputune_p3) { if (x_gputune3 == 0 || y_gputune0 == 0 || x_gputune3 == nx - 1 || y_gputune0 == ny - 1) {
    out[at_gputune3] = in[at_gputune3];
  } else {
    out[at_gputune3] = 0.25f * (in[at_gputune3 - 1] + in[at_gputune3 + 1] + in[at_gputune3 - nx] + in[at_gputune3 + nx]);
  } }
  if (!gputune_p4) { if (x_gputune0 == 0 || y_gputune1 == 0 || x_gputune0 == nx - 1 || y_gputune1 == ny - 1) {
    out[at_gputune4] = in[at_gputune4];
  } else {
    out[at_gputune4] = 0.25f * (in[at_gputune4 - 1] + in[at_gputune4 + 1] + in[at_gputune4 - nx] + in[at_gputune4 + nx]);
  } }
  if (!gputune_p5) { if (x_gputune1 == 0 || y_gputune1 == 0 || x_gputune1 == nx - 1 || y_gputune1 == ny - 1) {
    out[at_gputune5] = in[at_gputune5];
  } else {
    out[at_gputune5] = 0.25f * (in[at_gputune5 - 1] + in[at_gputune5 + 1] + in[at_gputune5 - nx] + in[at_gputune5 + nx]);
  } }
  if (!gputune_p6) { if (x_gputune2 == 0 || y_gputune1 == 0 || x_gputune2 == nx - 1 || y_gputune1 == ny - 1) {
    out[at_gputune6] = in[at_gputune6];
  } else {
    out[at_gputune6] = 0.25f * (in[at_gputune6 - 1] + in[at_gputune6 + 1] + in[at_gputune6 - nx] + in[at_gputune6 + nx]);
  } }
  if (!gputune_p7) { if (x_gputune3 == 0 || y_gputune1 == 0 || x_gputune3 == nx - 1 || y_gputune1 == ny - 1) {
    out[at_gputune7] = in[at_gputune7];
  } else {
    out[at_gputune7] = 0.25f * (in[at_gputune7 - 1] + in[at_gputune7 + 1] + in[at_gputune7 - nx] + in[at_gputune7 + nx]);
  } }
  if (!gputune_p8) { if (x_gputune0 == 0 || y_gputune2 == 0 || x_gputune0 == nx - 1 || y_gputune2 == ny - 1) {
    out[at_gputune8] = in[at_gputune8];
  } else {
    out[at_gputune8] = 0.25f * (in[at_gputune8 - 1] + in[at_gputune8 + 1] + in[at_gputune8 - nx] + in[at_gputune8 + nx]);
  } }
  if (!gputune_p9) { if (x_gputune1 == 0 || y_gputune2 == 0 || x_gputune1 == nx - 1 || y_gputune2 == ny - 1) {
    out[at_gputune9] = in[at_gputune9];
  } else {
    out[at_gputune9] = 0.25f * (in[at_gputune9 - 1] + in[at_gputune9 + 1] + in[at_gputune9 - nx] + in[at_gputune9 + nx]);
  } }
  if (!gputune_p10) { if (x_gputune2 == 0 || y_gputune2 == 0 || x_gputune2 == nx - 1 || y_gputune2 == ny - 1) {
    out[at_gputune10] = in[at_gputune10];
  } else {
    out[at_gputune10] = 0.25f * (in[at_gputune10 - 1] + in[at_gputune10 + 1] + in[at_gputune10 - nx] + in[at_gputune10 + nx]);
  } }
  if (!gputune_p11) { if (x_gputune3 == 0 || y_gputune2 == 0 || x_gputune3 == nx - 1 || y_gputune2 == ny - 1) {
    out[at_gputune11] = in[at_gputune11];
  } else {
    out[at_gputune11] = 0.25f * (in[at_gputune11 - 1] + in[at_gputune11 + 1] + in[at_gputune11 - nx] + in[at_gputune11 + nx]);
  } }
  if (!gputune_p12) { if (x_gputune0 == 0 || y_gputune3 == 0 || x_gputune0 == nx - 1 || y_gputune3 == ny - 1) {
    out[at_gputune12] = in[at_gputune12];
  } else {
    out[at_gputune12] = 0.25f * (in[at_gputune12 - 1] + in[at_gputune12 + 1] + in[at_gputune12 - nx] + in[at_gputune12 + nx]);
  } }
  if (!gputune_p13) { if (x_gputune1 == 0 || y_gputune3 == 0 || x_gputune1 == nx - 1 || y_gputune3 == ny - 1) {
    out[at_gputune13] = in[at_gputune13];
  } else {
    out[at_gputune13] = 0.25f * (in[at_gputune13 - 1] + in[at_gputune13 + 1] + in[at_gputune13 - nx] + in[at_gputune13 + nx]);
  } }
  if (!gputune_p14) { if (x_gputune2 == 0 || y_gputune3 == 0 || x_gputune2 == nx - 1 || y_gputune3 == ny - 1) {
    out[at_gputune14] = in[at_gputune14];
  } else {
    out[at_gputune14] = 0.25f * (in[at_gputune14 - 1] + in[at_gputune14 + 1] + in[at_gputune14 - nx] + in[at_gputune14 + nx]);
  } }
  if (!gputune_p15) { if (x_gputune3 == 0 || y_gputune3 == 0 || x_gputune3 == nx - 1 || y_gputune3 == ny - 1) {
    out[at_gputune15] = in[at_gputune15];
  } else {
    out[at_gputune15] = 0.25f * (in[at_gputune15 - 1] + in[at_gputune15 + 1] + in[at_gputune15 - nx] + in[at_gputune15 + nx]);
  } }
  }
}
