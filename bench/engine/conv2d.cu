// 2-D convolution of a width x height image with a (2R+1) x (2R+1) filter held in constant
// memory; pixels outside the image count as zero. One thread per output pixel.
#define R 2
#define FW (2 * R + 1)

__constant__ float filter[FW * FW];

__global__ void conv2d(float* out, const float* in, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int fy = -R; fy <= R; fy++) {
    for (int fx = -R; fx <= R; fx++) {
      int ix = x + fx;
      int iy = y + fy;
      if (ix >= 0 && ix < width && iy >= 0 && iy < height) {
        sum += filter[(fy + R) * FW + (fx + R)] * in[iy * width + ix];
      }
    }
  }
  out[y * width + x] = sum;
}
