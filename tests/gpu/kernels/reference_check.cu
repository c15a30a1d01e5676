// out = a * x + y. BUG 0 is right; BUG 1 and BUG 2 each get a different element wrong, so a
// search whose baseline has BUG 1 would call every right variant wrong if it checked against
// the baseline.
__global__ void axpy(float* out, const float* x, const float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float value = a * x[i] + y[i];
  if (BUG == 1 && i == n / 2) value += 1.0f;
  if (BUG == 2 && i == n / 3) value -= 1.0f;
  out[i] = value;
}
