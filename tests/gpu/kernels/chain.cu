// out = factor^2 * in in two launches through a scratch buffer; scale<1> skips the last element
// (a fault only the scratch buffer's poisoning can reveal once an earlier variant filled it).
template <int SKIP_LAST>
__global__ void scale(float* out, const float* in, int n, float factor) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || (SKIP_LAST && i == n - 1)) return;
  out[i] = factor * in[i];
}
