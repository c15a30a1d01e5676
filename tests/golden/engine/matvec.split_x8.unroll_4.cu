// y = A x for a row-major m x n matrix A: one thread per row, each walking its own row.
__global__ void matvec(float* y, const float* A, const float* x, int m, int n) {
  const int gputune_lane = threadIdx.x % 8;
  const unsigned gputune_lanes = (0xffu << ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u / 8u * 8u));
  int row = blockIdx.x * (blockDim.x / 8) + (threadIdx.x / 8);
  if (row < m) {
    float dot = 0.0f;
    if (gputune_lane != 0) dot = 0;
    #pragma unroll 4
    for (int j = gputune_lane; j < n; j += 8) {
      dot += A[(size_t)row * n + j] * x[j];
    }
    dot += __shfl_xor_sync(gputune_lanes, dot, 4);
    dot += __shfl_xor_sync(gputune_lanes, dot, 2);
    dot += __shfl_xor_sync(gputune_lanes, dot, 1);
    if (gputune_lane == 0) y[row] = dot;
  }
}
