// Reference kernels for reference_check.cu: a grid-stride loop, launched at one size whatever
// the variant's block.
__global__ void axpy_reference(float* out, const float* x, const float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = a * x[i] + y[i];
  }
}

// Writes only the first half of `out`: the check must refuse it, naming it.
__global__ void axpy_reference_half(float* out, const float* x, const float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 2; i += gridDim.x * blockDim.x) {
    out[i] = a * x[i] + y[i];
  }
}
