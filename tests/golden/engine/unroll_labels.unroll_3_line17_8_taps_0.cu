// Loops of every kind: labelled (on the loop's line and on the line before), with a pragma
// of their own, while and do.
#define TAPS 8

__global__ void smooth(float* out, const float* in, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  taps: for (int t = 0; t < TAPS; ++t) acc += in[min(i + t, n - 1)];
  int s = steps;
#pragma unroll 3
  while (s > 0) {
    acc *= 0.5f;
    --s;
  }
  bias_loop:
  #pragma unroll 8
  for (int k = 0; k < 4; ++k) {
    acc += 0.25f * k;
  }
  #pragma unroll 3
  do {
    acc -= 1.0f;
  } while (acc > 100.0f);
  out[i] = acc;
}
