// Point in polygon (even-odd rule) for n points against one polygon of VERTICES vertices held in
// constant memory: a compute-bound test, ~VERTICES x n edge tests. inside[i] is 1 or 0.
// Tuned: BLOCK threads, PPT points per thread (strided by the grid), UNROLL of the vertex loop,
// and TILE: 1 stages the polygon through shared memory instead of reading constant memory.
// The crossing test uses rounded intrinsics so that every variant decides a point the same way.
#ifndef VERTICES
#define VERTICES 512
#endif

__constant__ float polygon[2 * VERTICES];  // x0, y0, x1, y1, ...

// #pragma unroll with a macro argument: the argument is expanded before the pragma is made.
#define PIP_PRAGMA(x) _Pragma(#x)
#define PIP_UNROLL(N) PIP_PRAGMA(unroll N)

__device__ __forceinline__ int crosses(float px, float py, float xi, float yi, float xj,
                                       float yj) {
  if ((yi > py) == (yj > py)) return 0;
  const float x = __fmaf_rn(__fdiv_rn(__fsub_rn(xj, xi), __fsub_rn(yj, yi)), __fsub_rn(py, yi),
                            xi);
  return px < x ? 1 : 0;
}

extern "C" __global__ void point_in_polygon(int* inside, const float* px, const float* py,
                                            int n) {
#if TILE
  __shared__ float vertices[2 * VERTICES];
  for (int k = threadIdx.x; k < 2 * VERTICES; k += blockDim.x) vertices[k] = polygon[k];
  __syncthreads();
#define GPUTUNE_VERTEX(k) vertices[k]
#else
#define GPUTUNE_VERTEX(k) polygon[k]
#endif
  const int stride = gridDim.x * BLOCK;
  const int first = blockIdx.x * BLOCK + threadIdx.x;
  float x[PPT], y[PPT];
  int count[PPT];
#pragma unroll
  for (int p = 0; p < PPT; ++p) {
    const int i = first + p * stride;
    x[p] = i < n ? px[i] : 0.0f;
    y[p] = i < n ? py[i] : 0.0f;
    count[p] = 0;
  }
  float xj = GPUTUNE_VERTEX(2 * (VERTICES - 1)), yj = GPUTUNE_VERTEX(2 * (VERTICES - 1) + 1);
  PIP_UNROLL(UNROLL)
  for (int v = 0; v < VERTICES; ++v) {
    const float xi = GPUTUNE_VERTEX(2 * v), yi = GPUTUNE_VERTEX(2 * v + 1);
#pragma unroll
    for (int p = 0; p < PPT; ++p) count[p] ^= crosses(x[p], y[p], xi, yi, xj, yj);
    xj = xi;
    yj = yi;
  }
#pragma unroll
  for (int p = 0; p < PPT; ++p) {
    const int i = first + p * stride;
    if (i < n) inside[i] = count[p];
  }
}
