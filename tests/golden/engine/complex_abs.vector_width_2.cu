__global__ void complex_abs(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float2 gputune_v0 = reinterpret_cast<unsigned long long>(in) % 8 == 0 ? *reinterpret_cast<const float2*>(&in[2 * i]) : float2{in[2 * i], in[2 * i + 1]};  // vector_width
    float re = gputune_v0.x;
    float im = gputune_v0.y;
    out[i] = sqrtf(re * re + im * im);
  }
}
