// |z| for n complex numbers stored as interleaved (re, im) float pairs, one thread per number:
// the two halves are read as two words, which the engine's vector_width reads as one float2.
__global__ void complex_abs(float* out, const float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float re = z[2 * i];
    float im = z[2 * i + 1];
    out[i] = sqrtf(re * re + im * im);
  }
}
