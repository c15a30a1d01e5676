// All-pairs gravitational acceleration: one thread per body, w holds the mass.
__global__ void nbody(const float4* pos, float4* acc, int n, float softening) {
  int i_gputune0 = blockIdx.x * (blockDim.x * 4) + threadIdx.x;
  int i_gputune1 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + blockDim.x);
  int i_gputune2 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 2 * blockDim.x);
  int i_gputune3 = blockIdx.x * (blockDim.x * 4) + (threadIdx.x + 3 * blockDim.x);
  bool gputune_p0 = i_gputune0 >= n;
  bool gputune_p1 = i_gputune1 >= n;
  bool gputune_p2 = i_gputune2 >= n;
  bool gputune_p3 = i_gputune3 >= n;
  if (!gputune_p0 || !gputune_p1 || !gputune_p2 || !gputune_p3) {
  float4 me_gputune0 = !gputune_p0 ? (pos[i_gputune0]) : float4();
  float4 me_gputune1 = !gputune_p1 ? (pos[i_gputune1]) : float4();
  float4 me_gputune2 = !gputune_p2 ? (pos[i_gputune2]) : float4();
  float4 me_gputune3 = !gputune_p3 ? (pos[i_gputune3]) : float4();
  float ax_gputune0 = 0.0f;
  float ax_gputune1 = 0.0f;
  float ax_gputune2 = 0.0f;
  float ax_gputune3 = 0.0f;
  float ay_gputune0 = 0.0f;
  float ay_gputune1 = 0.0f;
  float ay_gputune2 = 0.0f;
  float ay_gputune3 = 0.0f;
  float az_gputune0 = 0.0f;
  float az_gputune1 = 0.0f;
  float az_gputune2 = 0.0f;
  float az_gputune3 = 0.0f;
  for (int j = 0; j < n; ++j) {
    float4 other = pos[j];
    float dx_gputune0 = other.x - me_gputune0.x;
    float dx_gputune1 = other.x - me_gputune1.x;
    float dx_gputune2 = other.x - me_gputune2.x;
    float dx_gputune3 = other.x - me_gputune3.x;
    float dy_gputune0 = other.y - me_gputune0.y;
    float dy_gputune1 = other.y - me_gputune1.y;
    float dy_gputune2 = other.y - me_gputune2.y;
    float dy_gputune3 = other.y - me_gputune3.y;
    float dz_gputune0 = other.z - me_gputune0.z;
    float dz_gputune1 = other.z - me_gputune1.z;
    float dz_gputune2 = other.z - me_gputune2.z;
    float dz_gputune3 = other.z - me_gputune3.z;
    float d2_gputune0 = dx_gputune0 * dx_gputune0 + dy_gputune0 * dy_gputune0 + dz_gputune0 * dz_gputune0 + softening;
    float d2_gputune1 = dx_gputune1 * dx_gputune1 + dy_gputune1 * dy_gputune1 + dz_gputune1 * dz_gputune1 + softening;
    float d2_gputune2 = dx_gputune2 * dx_gputune2 + dy_gputune2 * dy_gputune2 + dz_gputune2 * dz_gputune2 + softening;
    float d2_gputune3 = dx_gputune3 * dx_gputune3 + dy_gputune3 * dy_gputune3 + dz_gputune3 * dz_gputune3 + softening;
    float inv_gputune0 = rsqrtf(d2_gputune0);
    float inv_gputune1 = rsqrtf(d2_gputune1);
    float inv_gputune2 = rsqrtf(d2_gputune2);
    float inv_gputune3 = rsqrtf(d2_gputune3);
    float s_gputune0 = other.w * inv_gputune0 * inv_gputune0 * inv_gputune0;
    float s_gputune1 = other.w * inv_gputune1 * inv_gputune1 * inv_gputune1;
    float s_gputune2 = other.w * inv_gputune2 * inv_gputune2 * inv_gputune2;
    float s_gputune3 = other.w * inv_gputune3 * inv_gputune3 * inv_gputune3;
    ax_gputune0 += dx_gputune0 * s_gputune0;
    ax_gputune1 += dx_gputune1 * s_gputune1;
    ax_gputune2 += dx_gputune2 * s_gputune2;
    ax_gputune3 += dx_gputune3 * s_gputune3;
    ay_gputune0 += dy_gputune0 * s_gputune0;
    ay_gputune1 += dy_gputune1 * s_gputune1;
    ay_gputune2 += dy_gputune2 * s_gputune2;
    ay_gputune3 += dy_gputune3 * s_gputune3;
    az_gputune0 += dz_gputune0 * s_gputune0;
    az_gputune1 += dz_gputune1 * s_gputune1;
    az_gputune2 += dz_gputune2 * s_gputune2;
    az_gputune3 += dz_gputune3 * s_gputune3;
  }
  if (!gputune_p0) acc[i_gputune0] = make_float4(ax_gputune0, ay_gputune0, az_gputune0, 0.0f);
  if (!gputune_p1) acc[i_gputune1] = make_float4(ax_gputune1, ay_gputune1, az_gputune1, 0.0f);
  if (!gputune_p2) acc[i_gputune2] = make_float4(ax_gputune2, ay_gputune2, az_gputune2, 0.0f);
  if (!gputune_p3) acc[i_gputune3] = make_float4(ax_gputune3, ay_gputune3, az_gputune3, 0.0f);
  }
}
