// out = in, four floats per thread (n a multiple of 4): as close to DRAM peak as a kernel gets.
extern "C" __global__ void copy(float* out, const float* in, int n) {
  const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
    reinterpret_cast<float4*>(out)[i / 4] = reinterpret_cast<const float4*>(in)[i / 4];
  }
}
