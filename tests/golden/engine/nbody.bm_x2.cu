// All-pairs gravitational acceleration: one thread per body, w holds the mass.
__global__ void nbody(const float4* pos, float4* acc, int n, float softening, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = blockDim.x / 2;
  const unsigned int gputune_sub_x = threadIdx.x / gputune_block_x;
  if (blockIdx.x * 2 + gputune_sub_x >= gputune_grid_x) return;
  int i = (blockIdx.x * 2 + gputune_sub_x) * gputune_block_x + (threadIdx.x % gputune_block_x);
  if (i >= n) return;
  float4 me = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    float4 other = pos[j];
    float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
    float d2 = dx * dx + dy * dy + dz * dz + softening;
    float inv = rsqrtf(d2);
    float s = other.w * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  acc[i] = make_float4(ax, ay, az, 0.0f);
}
