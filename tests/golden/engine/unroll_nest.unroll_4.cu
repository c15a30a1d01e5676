// A loop nest (rows of a 2-D filter, taps of each row): only the inner loop is innermost.
__global__ void filter_rows(const float* in, const float* weights, float* out, int n,
                            int rows, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) {
    #pragma unroll 4
    for (int t = 0; t < taps; ++t) {
      sum += in[min(i + r * n + t, n * rows - 1)] * weights[r * taps + t];
    }
  }
  out[i] = sum;
}
