// One Jacobi step of the 5-point Laplace stencil on an nx x ny grid; the boundary rows and
// columns are copied. One thread per grid point.
__global__ void stencil5(float* out, const float* in, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  int idx = j * nx + i;
  if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
    out[idx] = in[idx];
  } else {
    out[idx] = 0.25f * (in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx]);
  }
}
