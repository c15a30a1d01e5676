// gputune kernel library: device-side helpers that make each transformation one line.
// Compiles under NVRTC without any standard header (kernels `#include "gputune.cuh"`; gputune
// passes --include-path=<the kernel's folder>). Everything lives in namespace gputune or is a
// GPUTUNE_ macro.
//
//   GPUTUNE_UNROLL(N)                 #pragma unroll N, N a macro or literal (1: no unrolling)
//   GPUTUNE_SHARED_TILE(T, name, R, C, PAD)
//                                     __shared__ T name[R][C + PAD]: padding moves a column's
//                                     words into different banks
//   gputune::hw_block_idx()           the launch block index, read from the hardware registers
//                                     (unaffected by the generic block_order transform)
//   gputune::remap_diagonal/column/swizzle
//                                     explicit block-order remaps, the same bijections as the
//                                     generic block_order transform
//   gputune::Vec<T, V>::type          float -> float/float2/float4 (V = 1, 2, 4)
//   gputune::load_vec / store_vec     V-wide access at an aligned element index
//   gputune::load_guarded / store_guarded
//                                     V-wide when the whole vector is in range and `vec_ok`
//                                     (the caller's alignment test), element by element
//                                     otherwise: ragged edges cost a branch, not a rewrite
//   gputune::Prefetch<T, N>           a register stage: load the next tile's N values while
//                                     the current tile is computed, then commit them
//   gputune::warp_sum / group_sum     butterfly sums over a warp or a power-of-two lane group
//   gputune::cp_async4/16, cp_async_commit, cp_async_wait<N>
//                                     global -> shared copies that skip registers (sm_80+),
//                                     zero-filling what lies beyond a ragged edge
#pragma once

#define GPUTUNE_PRAGMA(x) _Pragma(#x)
// The argument is expanded first, so GPUTUNE_UNROLL(UNROLL) with -DUNROLL=4 is #pragma unroll 4.
#define GPUTUNE_UNROLL(N) GPUTUNE_PRAGMA(unroll N)

#define GPUTUNE_SHARED_TILE(T, name, rows, cols, pad) __shared__ T name[(rows)][(cols) + (pad)]

namespace gputune {

// ---------------------------------------------------------------- block order
__device__ __forceinline__ uint3 hw_block_idx() {
  uint3 r;
  asm("mov.u32 %0, %%ctaid.x;" : "=r"(r.x));
  asm("mov.u32 %0, %%ctaid.y;" : "=r"(r.y));
  asm("mov.u32 %0, %%ctaid.z;" : "=r"(r.z));
  return r;
}

__device__ __forceinline__ uint3 hw_grid_dim() {
  uint3 r;
  asm("mov.u32 %0, %%nctaid.x;" : "=r"(r.x));
  asm("mov.u32 %0, %%nctaid.y;" : "=r"(r.y));
  asm("mov.u32 %0, %%nctaid.z;" : "=r"(r.z));
  return r;
}

// Each takes the launch block (bx, by) of a gx x gy grid and returns the block to work on.
// They match src/block_order.cpp, so a kernel remapping explicitly and one remapped by the
// transform visit blocks in the same order.
__device__ __forceinline__ uint2 remap_column(unsigned bx, unsigned by, unsigned gx,
                                              unsigned gy) {
  const unsigned id = bx + by * gx;
  return make_uint2(id / gy, id % gy);
}

__device__ __forceinline__ uint2 remap_diagonal(unsigned bx, unsigned by, unsigned gx,
                                                unsigned gy) {
  const unsigned id = bx + by * gx;
  const unsigned y = id % gy;
  return make_uint2((id / gy + y) % gx, y);
}

// Groups of n block rows, column-major inside a group: neighbouring blocks share A panels and
// B panels in L2 (matrix products).
__device__ __forceinline__ uint2 remap_swizzle(unsigned bx, unsigned by, unsigned gx, unsigned gy,
                                               unsigned n) {
  const unsigned id = bx + by * gx;
  const unsigned group = n * gx;
  const unsigned first_row = id / group * n;
  const unsigned rows = gy - first_row < n ? gy - first_row : n;
  const unsigned in_group = id % group;
  return make_uint2(in_group / rows, first_row + in_group % rows);
}

// ---------------------------------------------------------------- vectors
template <typename T, int V>
struct Vec;
template <>
struct Vec<float, 1> {
  typedef float type;
};
template <>
struct Vec<float, 2> {
  typedef float2 type;
};
template <>
struct Vec<float, 4> {
  typedef float4 type;
};

// Element i of a vector (i a compile-time constant after unrolling).
__device__ __forceinline__ float& lane_of(float& v, int) { return v; }
__device__ __forceinline__ float& lane_of(float2& v, int i) { return i == 0 ? v.x : v.y; }
__device__ __forceinline__ float& lane_of(float4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// p + i must be aligned to V elements.
template <int V>
__device__ __forceinline__ void load_vec(const float* __restrict__ p, long long i, float (&out)[V]) {
  typedef typename Vec<float, V>::type VT;
  VT v = *reinterpret_cast<const VT*>(p + i);
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = lane_of(v, k);
}

template <int V>
__device__ __forceinline__ void store_vec(float* __restrict__ p, long long i, const float (&in)[V]) {
  typedef typename Vec<float, V>::type VT;
  VT v;
#pragma unroll
  for (int k = 0; k < V; ++k) lane_of(v, k) = in[k];
  *reinterpret_cast<VT*>(p + i) = v;
}

// Elements i .. i+V-1 of p where they are below `limit`, `fill` beyond. One V-wide access when
// vec_ok (the caller knows p + i is aligned) and the whole vector is in range.
template <int V>
__device__ __forceinline__ void load_guarded(const float* __restrict__ p, long long i,
                                             long long limit, bool vec_ok, float (&out)[V],
                                             float fill = 0.0f) {
  if (vec_ok && i + V <= limit) {
    load_vec<V>(p, i, out);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = i + k < limit ? p[i + k] : fill;
  }
}

template <int V>
__device__ __forceinline__ void store_guarded(float* __restrict__ p, long long i, long long limit,
                                              bool vec_ok, const float (&in)[V]) {
  if (vec_ok && i + V <= limit) {
    store_vec<V>(p, i, in);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (i + k < limit) p[i + k] = in[k];
  }
}

// True when p is aligned to `bytes` (a power of two).
__device__ __forceinline__ bool is_aligned(const void* p, unsigned bytes) {
  return (reinterpret_cast<unsigned long long>(p) & (bytes - 1)) == 0;
}

// ---------------------------------------------------------------- prefetch
// A register stage for software pipelining: issue next tile's loads into `next` before
// computing the current tile, then commit them to shared memory after it:
//   Prefetch<float, 4> pf;  pf.next[i] = global[...];   // loads in flight
//   compute(current);                                    // hides their latency
//   tile[...] = pf.next[i];  __syncthreads();           // commit
template <typename T, int N>
struct Prefetch {
  T next[N];
};

// ---------------------------------------------------------------- reductions
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over aligned groups of G consecutive lanes (G a power of two <= 32); every lane of the
// group gets the sum. All 32 lanes of the warp must take part.
template <int G>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int offset = G / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

}  // namespace gputune

// ---------------------------------------------------------------- asynchronous copies
// cp.async (sm_80+): global -> shared without registers, completing in commit groups.
//   cp_async4(dst, src, bytes)   4 bytes (bytes 4 or 0: 0 zero-fills dst and reads nothing)
//   cp_async16(dst, src, bytes)  16 bytes, src and dst 16-byte aligned; bytes 0..16, the rest of
//                                the 16 zero-filled (ragged edges)
//   cp_async_commit()            closes the group of copies this thread issued since the last
//   cp_async_wait<N>()           waits until at most N of this thread's groups are in flight;
//                                a __syncthreads() after it makes every thread's copies visible
namespace gputune {
__device__ __forceinline__ unsigned shared_address(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}
__device__ __forceinline__ void cp_async4(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
}  // namespace gputune
