// Three smoothing passes over an nx x ny grid, one kernel per pass as a scientist would write
// them: in -> t1 -> t2 -> out, one thread per point. Interior points take a 5-point average
// (weighted towards the centre), points on the border keep their value. The engine's `fuse`
// makes one kernel of the first two or all three passes (bench/engine/stencil_chain.yaml).

__global__ void smooth_a(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float v = in[y * nx + x];
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
    v = 0.5f * v + 0.125f * (in[y * nx + x - 1] + in[y * nx + x + 1] + in[(y - 1) * nx + x] +
                             in[(y + 1) * nx + x]);
  }
  out[y * nx + x] = v;
}

__global__ void smooth_b(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float v = in[y * nx + x];
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
    v = 0.6f * v + 0.1f * (in[y * nx + x - 1] + in[y * nx + x + 1] + in[(y - 1) * nx + x] +
                           in[(y + 1) * nx + x]);
  }
  out[y * nx + x] = v;
}

__global__ void smooth_c(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float v = in[y * nx + x];
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
    v = 0.4f * v + 0.15f * (in[y * nx + x - 1] + in[y * nx + x + 1] + in[(y - 1) * nx + x] +
                            in[(y + 1) * nx + x]);
  }
  out[y * nx + x] = v;
}
