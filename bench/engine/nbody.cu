// All-pairs gravitational accelerations: one thread per body, looping over every other body.
// Positions are (x, y, z, mass); softening keeps the self-interaction finite (and zero).
__global__ void nbody(float4* accel, const float4* pos, int n, float softening2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 me = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; j++) {
    float4 other = pos[j];
    float dx = other.x - me.x;
    float dy = other.y - me.y;
    float dz = other.z - me.z;
    float dist2 = dx * dx + dy * dy + dz * dz + softening2;
    float inv = rsqrtf(dist2);
    float s = other.w * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  accel[i] = make_float4(ax, ay, az, 0.0f);
}
