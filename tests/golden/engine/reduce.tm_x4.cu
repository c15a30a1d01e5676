// Sums of blocks of 256 elements: out[b] = in[256 b] + ... + in[256 b + 255]; the block is 256.
__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float partial[256];
  unsigned int t_gputune0 = threadIdx.x;
  unsigned int t_gputune1 = (threadIdx.x + blockDim.x);
  unsigned int t_gputune2 = (threadIdx.x + 2 * blockDim.x);
  unsigned int t_gputune3 = (threadIdx.x + 3 * blockDim.x);
  unsigned int i_gputune0 = blockIdx.x * (blockDim.x * 4) + threadIdx.x;
  unsigned int i_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + blockDim.x);
  unsigned int i_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 2 * blockDim.x);
  unsigned int i_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 3 * blockDim.x);
  partial[t_gputune0] = i_gputune0 < n ? in[i_gputune0] : 0.0f;
  partial[t_gputune1] = i_gputune1 < n ? in[i_gputune1] : 0.0f;
  partial[t_gputune2] = i_gputune2 < n ? in[i_gputune2] : 0.0f;
  partial[t_gputune3] = i_gputune3 < n ? in[i_gputune3] : 0.0f;
  __syncthreads();
  for (unsigned int stride = (blockDim.x * 4) / 2; stride > 0; stride >>= 1) {
    if (t_gputune0 < stride) partial[t_gputune0] += partial[t_gputune0 + stride];
    if (t_gputune1 < stride) partial[t_gputune1] += partial[t_gputune1 + stride];
    if (t_gputune2 < stride) partial[t_gputune2] += partial[t_gputune2 + stride];
    if (t_gputune3 < stride) partial[t_gputune3] += partial[t_gputune3 + stride];
    __syncthreads();
  }
  if (t_gputune0 == 0) out[blockIdx.x] = partial[0];
  if (t_gputune1 == 0) out[blockIdx.x] = partial[0];
  if (t_gputune2 == 0) out[blockIdx.x] = partial[0];
  if (t_gputune3 == 0) out[blockIdx.x] = partial[0];
}
