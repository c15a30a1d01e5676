__global__ void saxpy(float* y, const float* x, float a, int n) {
  const int i_gputune0 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4);
  const int i_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 1);
  const int i_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 2);
  const int i_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 3);
  if (i_gputune0 < n) {
    y[i_gputune0] = a * x[i_gputune0] + y[i_gputune0];
  }
  if (i_gputune1 < n) {
    y[i_gputune1] = a * x[i_gputune1] + y[i_gputune1];
  }
  if (i_gputune2 < n) {
    y[i_gputune2] = a * x[i_gputune2] + y[i_gputune2];
  }
  if (i_gputune3 < n) {
    y[i_gputune3] = a * x[i_gputune3] + y[i_gputune3];
  }
}
