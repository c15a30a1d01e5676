__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int i_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x + blockDim.x);
  if (i_gputune0 < n) c[i_gputune0] = a[i_gputune0] + b[i_gputune0];
  if (i_gputune1 < n) c[i_gputune1] = a[i_gputune1] + b[i_gputune1];
}
