// All-pairs gravitational acceleration: one thread per body, w holds the mass.
__global__ void nbody(const float4* pos, float4* acc, int n, float softening, unsigned int gputune_grid_x) {
  const unsigned int gputune_block_x = (blockDim.x * 2) / 2;
  const unsigned int gputune_sub_x_gputune0 = threadIdx.x / gputune_block_x;
  const unsigned int gputune_sub_x_gputune1 = (threadIdx.x + blockDim.x) / gputune_block_x;
  bool gputune_p0 = blockIdx.x * 2 + gputune_sub_x_gputune0 >= gputune_grid_x;
  bool gputune_p1 = blockIdx.x * 2 + gputune_sub_x_gputune1 >= gputune_grid_x;
  if (!gputune_p0 || !gputune_p1) {
  int i_gputune0 = (blockIdx.x * 2 + gputune_sub_x_gputune0) * gputune_block_x + (threadIdx.x % gputune_block_x);
  int i_gputune1 = (blockIdx.x * 2 + gputune_sub_x_gputune1) * gputune_block_x + ((threadIdx.x + blockDim.x) % gputune_block_x);
  bool gputune_p2 = !gputune_p0 && (i_gputune0 >= n);
  bool gputune_p3 = !gputune_p1 && (i_gputune1 >= n);
  bool gputune_p4 = !gputune_p0 && !gputune_p2;
  bool gputune_p5 = !gputune_p1 && !gputune_p3;
  if (gputune_p4 || gputune_p5) {
  float4 me_gputune0 = gputune_p4 ? (pos[i_gputune0]) : float4();
  float4 me_gputune1 = gputune_p5 ? (pos[i_gputune1]) : float4();
  float ax_gputune0 = 0.0f;
  float ax_gputune1 = 0.0f;
  float ay_gputune0 = 0.0f;
  float ay_gputune1 = 0.0f;
  float az_gputune0 = 0.0f;
  float az_gputune1 = 0.0f;
  for (int j = 0; j < n; ++j) {
    float4 other = pos[j];
    float dx_gputune0 = other.x - me_gputune0.x;
    float dx_gputune1 = other.x - me_gputune1.x;
    float dy_gputune0 = other.y - me_gputune0.y;
    float dy_gputune1 = other.y - me_gputune1.y;
    float dz_gputune0 = other.z - me_gputune0.z;
    float dz_gputune1 = other.z - me_gputune1.z;
    float d2_gputune0 = dx_gputune0 * dx_gputune0 + dy_gputune0 * dy_gputune0 + dz_gputune0 * dz_gputune0 + softening;
    float d2_gputune1 = dx_gputune1 * dx_gputune1 + dy_gputune1 * dy_gputune1 + dz_gputune1 * dz_gputune1 + softening;
    float inv_gputune0 = rsqrtf(d2_gputune0);
    float inv_gputune1 = rsqrtf(d2_gputune1);
    float s_gputune0 = other.w * inv_gputune0 * inv_gputune0 * inv_gputune0;
    float s_gputune1 = other.w * inv_gputune1 * inv_gputune1 * inv_gputune1;
    ax_gputune0 += dx_gputune0 * s_gputune0;
    ax_gputune1 += dx_gputune1 * s_gputune1;
    ay_gputune0 += dy_gputune0 * s_gputune0;
    ay_gputune1 += dy_gputune1 * s_gputune1;
    az_gputune0 += dz_gputune0 * s_gputune0;
    az_gputune1 += dz_gputune1 * s_gputune1;
  }
  if (gputune_p4) acc[i_gputune0] = make_float4(ax_gputune0, ay_gputune0, az_gputune0, 0.0f);
  if (gputune_p5) acc[i_gputune1] = make_float4(ax_gputune1, ay_gputune1, az_gputune1, 0.0f);
  }
  }
}
