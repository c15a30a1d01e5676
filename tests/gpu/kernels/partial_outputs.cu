// Kernels that write only part of their outputs, as kernels of other tuners' examples do: a
// 5-point stencil that writes the interior of x_new, and a two-stage sum whose first stage
// writes one partial sum per block to the first num_blocks elements of a larger buffer.
// BUG (the stencil's planted error) comes from the spec's parameters as a macro.

__global__ void stencil5(float* x_new, const float* x_old, int nx, int ny) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= ny - 1 || j >= nx - 1) return;
  float v = 0.5f * x_old[i * nx + j] +
            0.125f * (x_old[(i - 1) * nx + j] + x_old[(i + 1) * nx + j] + x_old[i * nx + j - 1] +
                      x_old[i * nx + j + 1]);
#if BUG
  if (i == ny / 2 && j == nx / 2) v += 1.0f;
#endif
  x_new[i * nx + j] = v;
}

// Sums sums[0 .. blockDim.x) into sums[0]; blockDim.x is a power of two.
__device__ void block_sum(float* sums) {
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
}

// Block b sums in[b * chunk, (b + 1) * chunk): the same elements whatever THREADS is.
__global__ void partial_sums(float* partial, const float* in, int n, int chunk) {
  __shared__ float sums[1024];  // blockDim.x <= 1024
  const int begin = blockIdx.x * chunk;
  const int end = min(begin + chunk, n);
  float s = 0;
  for (int i = begin + threadIdx.x; i < end; i += blockDim.x) s += in[i];
  sums[threadIdx.x] = s;
  block_sum(sums);
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

__global__ void final_sum(float* total, const float* partial, int num_blocks) {
  __shared__ float sums[1024];  // blockDim.x <= 1024
  float s = 0;
  for (int i = threadIdx.x; i < num_blocks; i += blockDim.x) s += partial[i];
  sums[threadIdx.x] = s;
  block_sum(sums);
  if (threadIdx.x == 0) total[0] = sums[0];
}
