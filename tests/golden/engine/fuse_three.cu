// A chain of three passes for loop fusion's tests: along x (distance 1), along y (distance 1),
// then along x again two words apart (distance 2).
__global__ void pass_a(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float v = in[y * nx + x];
  if (x > 0 && x < nx - 1) v = 0.5f * v + 0.25f * (in[y * nx + x - 1] + in[y * nx + x + 1]);
  out[y * nx + x] = v;
}

__global__ void pass_b(const float* src, float* dst, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float v = src[y * width + x];
    if (y > 0 && y < height - 1) {
      v = 0.5f * v + 0.25f * (src[(y - 1) * width + x] + src[(y + 1) * width + x]);
    }
    dst[y * width + x] = v;
  }
}

__global__ void pass_c(const float* in, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float v = in[y * nx + x];
  if (x > 1 && x < nx - 2) v = 0.5f * v + 0.25f * (in[y * nx + x - 2] + in[y * nx + x + 2]);
  out[y * nx + x] = v;
}

__global__ void pass_a_gputune_fused(const float* gputune_in, float* gputune_t1, int gputune_nx, int gputune_ny, float* gputune_t2, float* gputune_out) {
  // fuse: launches 1 to 3 in one kernel; each stage computes the block's 32 x 8 tile (32 x 8 threads) and the halo its later stages read, into shared memory
  __shared__ float gputune_swap0[360];
  __shared__ float gputune_swap1[288];
  const bool gputune_inner = (long long)blockIdx.x * 32 >= 2 && ((long long)blockIdx.x + 1) * 32 + 2 <= (long long)gridDim.x * 32 && (long long)blockIdx.y * 8 >= 1 && ((long long)blockIdx.y + 1) * 8 + 1 <= (long long)gridDim.y * 8;
  {  // stage 1: pass_a (launch 1), the tile and a halo of 2 x 1
    const float* in = gputune_in;
    int nx = gputune_nx;
    int ny = gputune_ny;
    for (int gputune_c = threadIdx.y * 32 + threadIdx.x; gputune_c < 360; gputune_c += 256) {
      const int gputune_tx = gputune_c % 36 - 2;
      const int gputune_ty = gputune_c / 36 - 1;
      if (!gputune_inner && ((long long)blockIdx.x * 32 + gputune_tx < 0 || (long long)blockIdx.x * 32 + gputune_tx >= (long long)gridDim.x * 32 || (long long)blockIdx.y * 8 + gputune_ty < 0 || (long long)blockIdx.y * 8 + gputune_ty >= (long long)gridDim.y * 8)) continue;
      [&]() {
  int x = blockIdx.x * 32 + gputune_tx;
  int y = blockIdx.y * 8 + gputune_ty;
  if (x >= nx || y >= ny) return;
  float v = in[y * nx + x];
  if (x > 0 && x < nx - 1) v = 0.5f * v + 0.25f * (in[y * nx + x - 1] + in[y * nx + x + 1]);
  gputune_swap0[(gputune_ty + 1) * 36 + gputune_tx + 2] = v;
}();
    }
  }
  __syncthreads();
  {  // stage 2: pass_b (launch 2), the tile and a halo of 2 x 0
    int width = gputune_nx;
    int height = gputune_ny;
    for (int gputune_c = threadIdx.y * 32 + threadIdx.x; gputune_c < 288; gputune_c += 256) {
      const int gputune_tx = gputune_c % 36 - 2;
      const int gputune_ty = gputune_c / 36;
      if (!gputune_inner && ((long long)blockIdx.x * 32 + gputune_tx < 0 || (long long)blockIdx.x * 32 + gputune_tx >= (long long)gridDim.x * 32)) continue;
      [&]() {
  const int x = blockIdx.x * 32 + gputune_tx;
  const int y = blockIdx.y * 8 + gputune_ty;
  if (x < width && y < height) {
    float v = gputune_swap0[(gputune_ty + 1) * 36 + gputune_tx + 2];
    if (y > 0 && y < height - 1) {
      v = 0.5f * v + 0.25f * (gputune_swap0[(gputune_ty) * 36 + gputune_tx + 2] + gputune_swap0[(gputune_ty + 2) * 36 + gputune_tx + 2]);
    }
    gputune_swap1[(gputune_ty) * 36 + gputune_tx + 2] = v;
  }
}();
    }
  }
  __syncthreads();
  {  // stage 3: pass_c (launch 3), the tile and a halo of 0 x 0
    float* out = gputune_out;
    int nx = gputune_nx;
    int ny = gputune_ny;
    for (int gputune_c = threadIdx.y * 32 + threadIdx.x; gputune_c < 256; gputune_c += 256) {
      const int gputune_tx = gputune_c % 32;
      const int gputune_ty = gputune_c / 32;
      [&]() {
  int x = blockIdx.x * 32 + gputune_tx;
  int y = blockIdx.y * 8 + gputune_ty;
  if (x >= nx || y >= ny) return;
  float v = gputune_swap1[(gputune_ty) * 36 + gputune_tx + 2];
  if (x > 1 && x < nx - 2) v = 0.5f * v + 0.25f * (gputune_swap1[(gputune_ty) * 36 + gputune_tx] + gputune_swap1[(gputune_ty) * 36 + gputune_tx + 4]);
  out[y * nx + x] = v;
}();
    }
  }
}
