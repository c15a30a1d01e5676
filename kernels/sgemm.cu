// C = A B in float32 on CUDA cores; A is M x K, B is K x N, C is M x N, all row-major; any
// M, N, K. Every variant accumulates each C element over k in the same order (one fused
// multiply-add per k, k ascending), so variants agree bit for bit.
// Parameters (macros):
//   BM, BN    block tile: a block computes BM x BN of C (thread-block merge)
//   BK        K tile: the depth of the A and B tiles staged in shared memory per step
//   TM, TN    thread merge in Y and X (register blocking): a thread computes TM x TN of C;
//             the block has (BM / TM) x (BN / TN) threads
//   VEC       1 or 4: global loads, shared-memory fragment reads and C stores as float4 (where
//             the rows are aligned: K % 4 == 0 for A, N % 4 == 0 for B and C; single elements
//             otherwise); a thread's TM rows are TM / VEC runs of VEC rows spread over the tile
//   PAD       extra columns of the transposed A tile (As[k][m]): its transposing stores then
//             hit different banks
//   PREFETCH  1: double buffering: the next K tile is loaded into registers while this one is
//             computed, then stored to the other shared buffer (one barrier per step);
//             0: load, barrier, compute, barrier
//   UNROLL    unroll depth of the loop over k inside a tile
// Launch: block [(BN / TN) * (BM / TM)], grid [ceil(N / BN), ceil(M / BM)].
#include "gputune.cuh"

#ifndef BM
#define BM 32
#endif
#ifndef BN
#define BN 32
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 1
#endif
#ifndef TN
#define TN 1
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

#define THREADS_X (BN / TN)
#define THREADS ((BM / TM) * (BN / TN))
#define STAGES (PREFETCH ? 2 : 1)
// Vectors of a tile and how many each thread loads (the last round may be partial).
#define A_VECTORS (BM * BK / VEC)
#define B_VECTORS (BK * BN / VEC)
#define A_LOADS ((A_VECTORS + THREADS - 1) / THREADS)
#define B_LOADS ((B_VECTORS + THREADS - 1) / THREADS)
// Thread rows: TM / VEC runs of VEC rows, RUN_M apart (likewise columns).
#define RUN_M (BM / (TM / VEC))
#define RUN_N (BN / (TN / VEC))

struct Staged {
  float a[A_LOADS][VEC];
  float b[B_LOADS][VEC];
};

__device__ __forceinline__ void load_tiles(Staged& st, const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K,
                                           long long m0, long long n0, long long k0, int tid,
                                           bool a_vec, bool b_vec) {
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BK / VEC), c = (i % (BK / VEC)) * VEC;
    if ((A_VECTORS % THREADS == 0 || i < A_VECTORS) && m0 + r < M) {
      gputune::load_guarded<VEC>(A + (m0 + r) * K, k0 + c, K, a_vec, st.a[l]);
    } else {
#pragma unroll
      for (int q = 0; q < VEC; ++q) st.a[l][q] = 0.0f;
    }
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BN / VEC), c = (i % (BN / VEC)) * VEC;
    if ((B_VECTORS % THREADS == 0 || i < B_VECTORS) && k0 + r < K) {
      gputune::load_guarded<VEC>(B + (k0 + r) * N, n0 + c, N, b_vec, st.b[l]);
    } else {
#pragma unroll
      for (int q = 0; q < VEC; ++q) st.b[l][q] = 0.0f;
    }
  }
}

__device__ __forceinline__ void store_tiles(const Staged& st, float (*As)[BM + PAD],
                                            float (*Bs)[BN], int tid) {
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BK / VEC), c = (i % (BK / VEC)) * VEC;
    if (A_VECTORS % THREADS == 0 || i < A_VECTORS) {
#pragma unroll
      for (int q = 0; q < VEC; ++q) As[c + q][r] = st.a[l][q];  // transposed: As[k][m]
    }
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BN / VEC), c = (i % (BN / VEC)) * VEC;
    if (B_VECTORS % THREADS == 0 || i < B_VECTORS) gputune::store_vec<VEC>(Bs[r], c, st.b[l]);
  }
}

__device__ __forceinline__ void compute_tile(float (&acc)[TM][TN], const float (*As)[BM + PAD],
                                             const float (*Bs)[BN], int tx, int ty) {
  GPUTUNE_UNROLL(UNROLL)
  for (int k = 0; k < BK; ++k) {
    float a[TM], b[TN];
#pragma unroll
    for (int g = 0; g < TM / VEC; ++g) {
      float v[VEC];
      gputune::load_vec<VEC>(As[k], g * RUN_M + ty * VEC, v);
#pragma unroll
      for (int q = 0; q < VEC; ++q) a[g * VEC + q] = v[q];
    }
#pragma unroll
    for (int g = 0; g < TN / VEC; ++g) {
      float v[VEC];
      gputune::load_vec<VEC>(Bs[k], g * RUN_N + tx * VEC, v);
#pragma unroll
      for (int q = 0; q < VEC; ++q) b[g * VEC + q] = v[q];
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

extern "C" __global__ void
    sgemm(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M,
          int N, int K) {
  __shared__ __align__(16) float As[STAGES][BK][BM + PAD];
  __shared__ __align__(16) float Bs[STAGES][BK][BN];
  const int tid = threadIdx.x;
  const int tx = tid % THREADS_X, ty = tid / THREADS_X;
  const long long m0 = static_cast<long long>(blockIdx.y) * BM;
  const long long n0 = static_cast<long long>(blockIdx.x) * BN;
  const bool a_vec = K % VEC == 0, b_vec = N % VEC == 0;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }

  Staged st;
  const int tiles = (K + BK - 1) / BK;
#if PREFETCH
  load_tiles(st, A, B, M, N, K, m0, n0, 0, tid, a_vec, b_vec);
  store_tiles(st, As[0], Bs[0], tid);
  __syncthreads();
#pragma unroll 1
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    // The next tile's loads are in flight while this tile is computed.
    if (t + 1 < tiles) load_tiles(st, A, B, M, N, K, m0, n0, (t + 1) * BK, tid, a_vec, b_vec);
    compute_tile(acc, As[cur], Bs[cur], tx, ty);
    if (t + 1 < tiles) store_tiles(st, As[cur ^ 1], Bs[cur ^ 1], tid);
    __syncthreads();
  }
#else
#pragma unroll 1
  for (int t = 0; t < tiles; ++t) {
    load_tiles(st, A, B, M, N, K, m0, n0, t * BK, tid, a_vec, b_vec);
    store_tiles(st, As[0], Bs[0], tid);
    __syncthreads();
    compute_tile(acc, As[0], Bs[0], tx, ty);
    __syncthreads();
  }
#endif

#pragma unroll
  for (int gi = 0; gi < TM / VEC; ++gi) {
#pragma unroll
    for (int qi = 0; qi < VEC; ++qi) {
      const long long row = m0 + gi * RUN_M + ty * VEC + qi;
      if (row >= M) continue;
#pragma unroll
      for (int gj = 0; gj < TN / VEC; ++gj) {
        float v[VEC];
#pragma unroll
        for (int qj = 0; qj < VEC; ++qj) v[qj] = acc[gi * VEC + qi][gj * VEC + qj];
        gputune::store_guarded<VEC>(C + row * N, n0 + gj * RUN_N + tx * VEC, N, b_vec, v);
      }
    }
  }
}
