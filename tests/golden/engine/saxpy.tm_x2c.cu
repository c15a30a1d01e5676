__global__ void saxpy(float* y, const float* x, float a, int n) {
  const int i_gputune0 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2);
  const int i_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2 + 1);
  if (i_gputune0 < n) {
    y[i_gputune0] = a * x[i_gputune0] + y[i_gputune0];
  }
  if (i_gputune1 < n) {
    y[i_gputune1] = a * x[i_gputune1] + y[i_gputune1];
  }
}
