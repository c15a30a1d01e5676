// A 2-D convolution whose filter lives in constant memory, as many tuners' examples write it:
// out (w x h) = in ((w + FW - 1) x (h + FW - 1)) correlated with filter (FW x FW).
#ifndef FW
#define FW 5
#endif

__constant__ float filter[FW * FW];

__global__ void conv2d(float* out, const float* in, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int in_w = w + FW - 1;
  float sum = 0.0f;
  for (int j = 0; j < FW; ++j) {
    for (int i = 0; i < FW; ++i) sum += in[(y + j) * in_w + x + i] * filter[j * FW + i];
  }
  out[y * w + x] = sum;
}
