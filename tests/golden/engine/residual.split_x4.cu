// r = b - A x over a band.
__global__ void residual(float* r, const float* A, const float* b, const float* x, int m,
                         int n) {
  const int gputune_lane = threadIdx.x % 4;
  const unsigned gputune_lanes = (0xfu << ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u / 4u * 4u));
  int row = blockIdx.x * (blockDim.x / 4) + (threadIdx.x / 4);
  if (row >= m) return;
  double sum = b[row];
  if (gputune_lane != 0) sum = 0;
  for (int j = (1) + gputune_lane * 2; j <= n; j += 8)
    sum -= (double)A[row * n + j] * x[j];
  sum += __shfl_xor_sync(gputune_lanes, sum, 2);
  sum += __shfl_xor_sync(gputune_lanes, sum, 1);
  if (gputune_lane != 0) sum = 0;
  for (int j = gputune_lane * 2; j < n; j += 8) sum = sum - A[row * n + j] * x[j];
  sum += __shfl_xor_sync(gputune_lanes, sum, 2);
  sum += __shfl_xor_sync(gputune_lanes, sum, 1);
  if (sum < 0.0)
    { if (gputune_lane == 0) r[row] = (float)-sum; }
  else
    { if (gputune_lane == 0) r[row] = (float)sum; }
}
