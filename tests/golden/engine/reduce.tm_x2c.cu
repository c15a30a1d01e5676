// Sums of blocks of 256 elements: out[b] = in[256 b] + ... + in[256 b + 255]; the block is 256.
__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float partial[256];
  unsigned int t_gputune0 = (threadIdx.x * 2);
  unsigned int t_gputune1 = (threadIdx.x * 2 + 1);
  unsigned int i_gputune0 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2);
  unsigned int i_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2 + 1);
  partial[t_gputune0] = i_gputune0 < n ? in[i_gputune0] : 0.0f;
  partial[t_gputune1] = i_gputune1 < n ? in[i_gputune1] : 0.0f;
  __syncthreads();
  for (unsigned int stride = (blockDim.x * 2) / 2; stride > 0; stride >>= 1) {
    if (t_gputune0 < stride) partial[t_gputune0] += partial[t_gputune0 + stride];
    if (t_gputune1 < stride) partial[t_gputune1] += partial[t_gputune1 + stride];
    __syncthreads();
  }
  if (t_gputune0 == 0) out[blockIdx.x] = partial[0];
  if (t_gputune1 == 0) out[blockIdx.x] = partial[0];
}
