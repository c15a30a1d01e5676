// All-pairs gravitational acceleration: one thread per body, w holds the mass.
__global__ void nbody(const float4* pos, float4* acc, int n, float softening) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2);
  int i_gputune1 = blockIdx.x * (blockDim.x * 2) + (threadIdx.x * 2 + 1);
  bool gputune_p0 = i_gputune0 >= n;
  bool gputune_p1 = i_gputune1 >= n;
  if (!gputune_p0 || !gputune_p1) {
  float4 me_gputune0 = !gputune_p0 ? (pos[i_gputune0]) : float4();
  float4 me_gputune1 = !gputune_p1 ? (pos[i_gputune1]) : float4();
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
  if (!gputune_p0) acc[i_gputune0] = make_float4(ax_gputune0, ay_gputune0, az_gputune0, 0.0f);
  if (!gputune_p1) acc[i_gputune1] = make_float4(ax_gputune1, ay_gputune1, az_gputune1, 0.0f);
  }
}
