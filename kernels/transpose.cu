// out = in^T for an n x n row-major float32 matrix; any n (ragged edge tiles are guarded).
// Parameters (macros):
//   TILE     edge of the square tile one block transposes
//   MERGE_Y  rows each thread handles (thread merge); the block is (TILE / VEC) x (TILE / MERGE_Y)
//   VEC      elements each thread moves per access: 1, 2 or 4 (float, float2, float4); a
//            vector access is used where the whole vector is inside the matrix and n % VEC == 0
//            (rows stay aligned), single elements elsewhere
//   SHARED   0: read and write global memory directly; 1: stage the tile in shared memory so
//            that both the read and the write are coalesced
//   PAD      extra columns in the shared tile, which move a column's words into different
//            banks (SHARED == 1 only)
//   TALL     the tile is TILE columns x TALL * TILE rows of the input (SHARED == 1 only), so
//            each output row gets runs of TALL * TILE consecutive elements: longer write bursts
//   STREAM   1: streaming cache hints (ld.global.cs / st.global.cs, evict first): every byte
//            is touched once, so nothing is worth keeping in the caches
#include "gputune.cuh"

#ifndef TILE
#define TILE 32
#endif
#ifndef MERGE_Y
#define MERGE_Y 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef SHARED
#define SHARED 1
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef TALL
#define TALL 1
#endif
#ifndef STREAM
#define STREAM 0
#endif

#define TILE_Y (TILE * TALL)
#define ROWS_PER_PASS (TILE_Y / MERGE_Y)

// V-wide global accesses with the STREAM cache hint; the plain ones otherwise.
template <int V>
__device__ __forceinline__ void load_hinted(const float* __restrict__ p, long long i, long long limit,
                                            bool vec_ok, float (&out)[V]) {
#if STREAM
  const float* q = p + i;
  if (vec_ok && i + V <= limit) {
    if constexpr (V == 4) {
      asm volatile("ld.global.cs.v4.f32 {%0, %1, %2, %3}, [%4];"
                   : "=f"(out[0]), "=f"(out[V > 1 ? 1 : 0]), "=f"(out[V > 2 ? 2 : 0]),
                     "=f"(out[V > 3 ? 3 : 0])
                   : "l"(q));
    } else if constexpr (V == 2) {
      asm volatile("ld.global.cs.v2.f32 {%0, %1}, [%2];"
                   : "=f"(out[0]), "=f"(out[V > 1 ? 1 : 0])
                   : "l"(q));
    } else {
      asm volatile("ld.global.cs.f32 %0, [%1];" : "=f"(out[0]) : "l"(q));
    }
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      out[k] = 0.0f;
      if (i + k < limit) asm volatile("ld.global.cs.f32 %0, [%1];" : "=f"(out[k]) : "l"(q + k));
    }
  }
#else
  gputune::load_guarded<V>(p, i, limit, vec_ok, out);
#endif
}

template <int V>
__device__ __forceinline__ void store_hinted(float* __restrict__ p, long long i, long long limit,
                                             bool vec_ok, const float (&in)[V]) {
#if STREAM
  float* q = p + i;
  if (vec_ok && i + V <= limit) {
    if constexpr (V == 4) {
      asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(q), "f"(in[0]),
                   "f"(in[V > 1 ? 1 : 0]), "f"(in[V > 2 ? 2 : 0]), "f"(in[V > 3 ? 3 : 0])
                   : "memory");
    } else if constexpr (V == 2) {
      asm volatile("st.global.cs.v2.f32 [%0], {%1, %2};" ::"l"(q), "f"(in[0]),
                   "f"(in[V > 1 ? 1 : 0])
                   : "memory");
    } else {
      asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(q), "f"(in[0]) : "memory");
    }
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (i + k < limit) asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(q + k), "f"(in[k]) : "memory");
  }
#else
  gputune::store_guarded<V>(p, i, limit, vec_ok, in);
#endif
}

extern "C" __global__ void transpose(float* __restrict__ out, const float* __restrict__ in,
                                     int n) {
  const long long size = n;
  const long long tile_x = static_cast<long long>(blockIdx.x) * TILE;
  const long long tile_y = static_cast<long long>(blockIdx.y) * TILE_Y;
  const int col = threadIdx.x * VEC;  // first column of this thread inside the tile
  const long long x = tile_x + col;
  const bool vec_ok = size % VEC == 0;
#if SHARED
  GPUTUNE_SHARED_TILE(float, tile, TILE_Y, TILE, PAD);
  // All loads first, then the shared-memory stores: MERGE_Y independent loads in flight.
  float v[MERGE_Y][VEC];
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
    const long long y = tile_y + threadIdx.y + j * ROWS_PER_PASS;
    if (y < size) {
      load_hinted<VEC>(in + y * size, x, size, vec_ok, v[j]);
    } else {
#pragma unroll
      for (int k = 0; k < VEC; ++k) v[j][k] = 0.0f;
    }
  }
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
#pragma unroll
    for (int k = 0; k < VEC; ++k) tile[threadIdx.y + j * ROWS_PER_PASS][col + k] = v[j][k];
  }
  __syncthreads();
  // The block writes the mirrored tile (TILE rows of TILE_Y): its rows are the input tile's
  // columns, and a thread's VEC outputs of a row are VEC consecutive input rows of one column.
  // Threads are laid out again over the output tile (the same layout when TALL == 1).
  const int tid = threadIdx.y * (TILE / VEC) + threadIdx.x;
  const int out_col = (tid % (TILE_Y / VEC)) * VEC;
  const int out_row = tid / (TILE_Y / VEC);
  const long long out_x = tile_y + out_col;
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
    const int c = out_row + j * (TILE / MERGE_Y);
    const long long out_y = tile_x + c;
    float w[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) w[k] = tile[out_col + k][c];
    if (out_y < size) store_hinted<VEC>(out + out_y * size, out_x, size, vec_ok, w);
  }
#else
#pragma unroll
  for (int j = 0; j < MERGE_Y; ++j) {
    const long long y = tile_y + threadIdx.y + j * ROWS_PER_PASS;
    if (y >= size) continue;
    float v[VEC];
    load_hinted<VEC>(in + y * size, x, size, vec_ok, v);
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      if (x + k < size) out[(x + k) * size + y] = v[k];
  }
#endif
}
