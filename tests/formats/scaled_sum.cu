// z = a * x + y, each thread handling TILE consecutive elements; block_size_x and TILE come in
// as macros, as Kernel Tuner, KTT and BAT pass tunable parameters.
extern "C" __global__ void scaled_sum(float* z, const float* x, const float* y, float a, int n) {
  const int base = (blockIdx.x * block_size_x + threadIdx.x) * TILE;
#pragma unroll
  for (int t = 0; t < TILE; ++t) {
    const int i = base + t;
    if (i < n) z[i] = a * x[i] + y[i];
  }
}
