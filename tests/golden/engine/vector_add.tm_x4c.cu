__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4);
  int i_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 1);
  int i_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 2);
  int i_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x * 4 + 3);
  if (i_gputune0 < n) c[i_gputune0] = a[i_gputune0] + b[i_gputune0];
  if (i_gputune1 < n) c[i_gputune1] = a[i_gputune1] + b[i_gputune1];
  if (i_gputune2 < n) c[i_gputune2] = a[i_gputune2] + b[i_gputune2];
  if (i_gputune3 < n) c[i_gputune3] = a[i_gputune3] + b[i_gputune3];
}
