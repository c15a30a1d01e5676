// C = A B in float32 on CUDA cores; A is M x K, B is K x N, C is M x N, all row-major; any
// M, N, K. Every variant accumulates each C element over k in the same order (one fused
// multiply-add per k, k ascending), so variants agree bit for bit.
// Parameters (macros):
//   BM, BN    block tile: a block computes BM x BN of C (thread-block merge)
//   BK        K tile: the depth of the A and B tiles staged in shared memory per step
//   TM, TN    thread merge in Y and X (register blocking): a thread computes TM x TN of C;
//             the block has (BM / TM) x (BN / TN) threads. Where both are multiples of 4 the
//             thread's shared-memory fragments are read as float4 (runs of 4 rows / columns)
//   WX        warp tiling: a warp's 32 lanes are WX columns x (32 / WX) rows of threads, so a
//             warp owns a (32 / WX * TM) x (WX * TN) sub-tile of C; a thread's runs of 4 are
//             4 * WX columns (4 * 32 / WX rows) apart inside it. Small WX: fewer distinct
//             shared-memory words per warp read
//   ASYNC     0: global -> registers -> shared (float4 global loads where rows are aligned);
//             1: cp.async global -> shared with no registers in between (16-byte copies of B
//             where N % 4 == 0, 4-byte copies of A, which is stored transposed)
//   STAGES    shared-memory buffers of K tiles. ASYNC 0: 1 = load, barrier, compute, barrier;
//             2 = the next tile is loaded into registers while this one is computed. ASYNC 1:
//             2..4 = a ring of cp.async stages, STAGES - 1 tiles in flight during a compute
//   PAD       extra columns of the transposed A tile (As[k][m]): its transposing stores then
//             hit different banks
//   UNROLL    unroll depth of the loop over k inside a tile
// Interior blocks (the whole block tile inside C, N and K multiples of 4 for the float4 paths)
// run their whole K tiles in a loop with no bounds tests; ragged blocks and the last partial
// K tile take the guarded loads, so any M, N, K works and the hot loop carries no guards.
// Launch: block [(BN / TN) * (BM / TM)], grid [ceil(N / BN), ceil(M / BM)], dynamic shared
// memory 4 * STAGES * BK * (BM + PAD + BN) bytes.
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
#ifndef WX
#define WX 32
#endif
#ifndef ASYNC
#define ASYNC 0
#endif
#ifndef STAGES
#define STAGES 1
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

#define THREADS ((BM / TM) * (BN / TN))
#define FRAG ((TM % 4 == 0 && TN % 4 == 0) ? 4 : 1)
// Warp tiling: lanes WX x WY, warp tile WM x WN, warps WARPS_N across the block tile.
#define WY (32 / WX)
#define WN (WX * TN)
#define WM (WY * TM)
#define WARPS_N (BN / WN)
// Shared tiles: As[k][m] (transposed, rows of BM + PAD), Bs[k][n].
#define LDA_S (BM + PAD)
#define A_TILE (BK * LDA_S)
#define B_TILE (BK * BN)

#if ASYNC
// ------------------------------------------------------------------ cp.async loads
// A: element e of the BM x BK tile -> row r, column c, where a warp covers 8 consecutive k of 4
// rows (32-byte global sectors; with PAD 4 the transposing shared stores hit 32 banks).
// Copies per thread, rounded up: a tile with fewer copies than threads (BK * BN / 4 < THREADS
// for 16-byte copies of B) leaves the last threads idle instead of copying nothing at all.
#define A_TOTAL (BM * BK)
#define B_TOTAL16 (BK * BN / 4)
#define B_TOTAL4 (BK * BN)
#define A_COPIES ((A_TOTAL + THREADS - 1) / THREADS)
#define B_COPIES16 ((B_TOTAL16 + THREADS - 1) / THREADS)
#define B_COPIES4 ((B_TOTAL4 + THREADS - 1) / THREADS)
// Whether copy e of a tile with `total` copies exists (known true at compile time when the
// threads divide the tile).
#define COPY_EXISTS(total, e) ((total) % THREADS == 0 || (e) < (total))

template <bool B16>
__device__ __forceinline__ void issue_tile(float (*As)[LDA_S], float (*Bs)[BN], const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K,
                                           long long m0, long long n0, long long k0, int tid) {
#pragma unroll
  for (int l = 0; l < A_COPIES; ++l) {
    const int e = tid + l * THREADS;
    if (!COPY_EXISTS(A_TOTAL, e)) break;
    const int rest = e / 8;
    const int r = rest % BM, c = (rest / BM) * 8 + e % 8;
    const bool ok = m0 + r < M && k0 + c < K;
    const float* src = ok ? A + (m0 + r) * K + k0 + c : A;
    gputune::cp_async4(&As[c][r], src, ok ? 4 : 0);
  }
  if (B16) {
#pragma unroll
    for (int l = 0; l < B_COPIES16; ++l) {
      const int e = tid + l * THREADS;
      if (!COPY_EXISTS(B_TOTAL16, e)) break;
      const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
      const long long left = k0 + r < K ? N - (n0 + c) : 0;
      const int bytes = left >= 4 ? 16 : left > 0 ? static_cast<int>(left) * 4 : 0;
      const float* src = bytes > 0 ? B + (k0 + r) * N + n0 + c : B;
      gputune::cp_async16(&Bs[r][c], src, bytes);
    }
  } else {
#pragma unroll
    for (int l = 0; l < B_COPIES4; ++l) {
      const int e = tid + l * THREADS;
      if (!COPY_EXISTS(B_TOTAL4, e)) break;
      const int r = e / BN, c = e % BN;
      const bool ok = k0 + r < K && n0 + c < N;
      const float* src = ok ? B + (k0 + r) * N + n0 + c : B;
      gputune::cp_async4(&Bs[r][c], src, ok ? 4 : 0);
    }
  }
}

// Interior blocks, whole K tiles, N % 4 == 0: the same copies with no bounds tests.
// a_tile = A + m0 * K + k0, b_tile = B + k0 * N + n0.
__device__ __forceinline__ void issue_tile_interior(float (*As)[LDA_S], float (*Bs)[BN],
                                                    const float* __restrict__ a_tile,
                                                    const float* __restrict__ b_tile, int N,
                                                    int K, int tid) {
#pragma unroll
  for (int l = 0; l < A_COPIES; ++l) {
    const int e = tid + l * THREADS;
    if (!COPY_EXISTS(A_TOTAL, e)) break;
    const int rest = e / 8;
    const int r = rest % BM, c = (rest / BM) * 8 + e % 8;
    gputune::cp_async4(&As[c][r], a_tile + r * K + c, 4);
  }
#pragma unroll
  for (int l = 0; l < B_COPIES16; ++l) {
    const int e = tid + l * THREADS;
    if (!COPY_EXISTS(B_TOTAL16, e)) break;
    const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
    gputune::cp_async16(&Bs[r][c], b_tile + r * N + c, 16);
  }
}
#else
// ------------------------------------------------------------------ register-staged loads
#define A_VECTORS (BM * BK / FRAG)
#define B_VECTORS (BK * BN / FRAG)
#define A_LOADS ((A_VECTORS + THREADS - 1) / THREADS)
#define B_LOADS ((B_VECTORS + THREADS - 1) / THREADS)

struct Staged {
  float a[A_LOADS][FRAG];
  float b[B_LOADS][FRAG];
};

__device__ __forceinline__ void load_tiles(Staged& st, const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K,
                                           long long m0, long long n0, long long k0, int tid,
                                           bool a_vec, bool b_vec) {
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BK / FRAG), c = (i % (BK / FRAG)) * FRAG;
    if ((A_VECTORS % THREADS == 0 || i < A_VECTORS) && m0 + r < M) {
      gputune::load_guarded<FRAG>(A + (m0 + r) * K, k0 + c, K, a_vec, st.a[l]);
    } else {
#pragma unroll
      for (int q = 0; q < FRAG; ++q) st.a[l][q] = 0.0f;
    }
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BN / FRAG), c = (i % (BN / FRAG)) * FRAG;
    if ((B_VECTORS % THREADS == 0 || i < B_VECTORS) && k0 + r < K) {
      gputune::load_guarded<FRAG>(B + (k0 + r) * N, n0 + c, N, b_vec, st.b[l]);
    } else {
#pragma unroll
      for (int q = 0; q < FRAG; ++q) st.b[l][q] = 0.0f;
    }
  }
}

// Interior blocks (the whole BM x BN tile inside C, rows aligned for FRAG-wide loads) and full K
// tiles: no bounds tests, no scalar fallback. a_tile = A + m0 * K + k0, b_tile = B + k0 * N + n0.
__device__ __forceinline__ void load_tiles_interior(Staged& st, const float* __restrict__ a_tile,
                                                    const float* __restrict__ b_tile, int N, int K,
                                                    int tid) {
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BK / FRAG), c = (i % (BK / FRAG)) * FRAG;
    if (A_VECTORS % THREADS == 0 || i < A_VECTORS) gputune::load_vec<FRAG>(a_tile + r * K, c, st.a[l]);
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BN / FRAG), c = (i % (BN / FRAG)) * FRAG;
    if (B_VECTORS % THREADS == 0 || i < B_VECTORS) gputune::load_vec<FRAG>(b_tile + r * N, c, st.b[l]);
  }
}

__device__ __forceinline__ void store_tiles(const Staged& st, float (*As)[LDA_S], float (*Bs)[BN],
                                            int tid) {
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BK / FRAG), c = (i % (BK / FRAG)) * FRAG;
    if (A_VECTORS % THREADS == 0 || i < A_VECTORS) {
#pragma unroll
      for (int q = 0; q < FRAG; ++q) As[c + q][r] = st.a[l][q];  // transposed
    }
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    const int i = tid + l * THREADS;
    const int r = i / (BN / FRAG), c = (i % (BN / FRAG)) * FRAG;
    if (B_VECTORS % THREADS == 0 || i < B_VECTORS) gputune::store_vec<FRAG>(Bs[r], c, st.b[l]);
  }
}
#endif

// One K tile: per k, the thread's TM values of A and TN values of B from shared memory, then
// TM x TN fused multiply-adds.
__device__ __forceinline__ void compute_tile(float (&acc)[TM][TN], const float (*As)[LDA_S],
                                             const float (*Bs)[BN], int row0, int col0) {
  GPUTUNE_UNROLL(UNROLL)
  for (int k = 0; k < BK; ++k) {
    float a[TM], b[TN];
#pragma unroll
    for (int g = 0; g < TM / FRAG; ++g) {
      float v[FRAG];
      gputune::load_vec<FRAG>(As[k], row0 + g * WY * FRAG, v);
#pragma unroll
      for (int q = 0; q < FRAG; ++q) a[g * FRAG + q] = v[q];
    }
#pragma unroll
    for (int g = 0; g < TN / FRAG; ++g) {
      float v[FRAG];
      gputune::load_vec<FRAG>(Bs[k], col0 + g * WX * FRAG, v);
#pragma unroll
      for (int q = 0; q < FRAG; ++q) b[g * FRAG + q] = v[q];
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

#if ASYNC
template <bool B16>
__device__ __forceinline__ void async_loop(float (&acc)[TM][TN], float (*As)[BK][LDA_S],
                                           float (*Bs)[BK][BN], const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K,
                                           long long m0, long long n0, int tid, int row0,
                                           int col0) {
  const int tiles = (K + BK - 1) / BK;
  // Prologue: STAGES - 1 tiles in flight; one commit group per tile, empty ones included, so
  // that "at most STAGES - 2 groups pending" always means "tile t has landed".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) issue_tile<B16>(As[s], Bs[s], A, B, M, N, K, m0, n0, s * BK, tid);
    gputune::cp_async_commit();
  }
  int slot = 0, next_slot = STAGES - 1;
  int t = 0;
  if (B16) {
    // Interior blocks: while the tile to issue is whole, a loop with no bounds tests.
    const bool interior = m0 + BM <= M && n0 + BN <= N;
    const int fast_tiles = interior ? K / BK : 0;
    const float* a_tile = A + m0 * K + (STAGES - 1) * BK;
    const float* b_tile = B + static_cast<long long>(STAGES - 1) * BK * N + n0;
    const long long b_step = static_cast<long long>(BK) * N;
#pragma unroll 1
    for (; t + STAGES - 1 < fast_tiles; ++t) {
      gputune::cp_async_wait<STAGES - 2>();
      __syncthreads();
      issue_tile_interior(As[next_slot], Bs[next_slot], a_tile, b_tile, N, K, tid);
      a_tile += BK;
      b_tile += b_step;
      gputune::cp_async_commit();
      compute_tile(acc, As[slot], Bs[slot], row0, col0);
      slot = slot + 1 == STAGES ? 0 : slot + 1;
      next_slot = next_slot + 1 == STAGES ? 0 : next_slot + 1;
    }
  }
#pragma unroll 1
  for (; t < tiles; ++t) {
    gputune::cp_async_wait<STAGES - 2>();
    // Every thread's copies of tile t are visible, and every thread is done with tile t - 1,
    // whose slot the next issue overwrites.
    __syncthreads();
    const int next = t + STAGES - 1;
    if (next < tiles) {
      issue_tile<B16>(As[next_slot], Bs[next_slot], A, B, M, N, K, m0, n0,
                      static_cast<long long>(next) * BK, tid);
    }
    gputune::cp_async_commit();
    compute_tile(acc, As[slot], Bs[slot], row0, col0);
    slot = slot + 1 == STAGES ? 0 : slot + 1;
    next_slot = next_slot + 1 == STAGES ? 0 : next_slot + 1;
  }
}
#endif

extern "C" __global__ void
    sgemm(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M,
          int N, int K) {
  extern __shared__ __align__(16) float smem[];
  // STAGES tiles As[BK][LDA_S], then STAGES tiles Bs[BK][BN].
  float(*const As)[BK][LDA_S] = reinterpret_cast<float(*)[BK][LDA_S]>(smem);
  float(*const Bs)[BK][BN] = reinterpret_cast<float(*)[BK][BN]>(smem + STAGES * A_TILE);
  const int tid = threadIdx.x;
  const int lane = tid % 32, warp = tid / 32;
  // First row / column of this thread's fragments inside the block tile.
  const int row0 = (warp / WARPS_N) * WM + (lane / WX) * FRAG;
  const int col0 = (warp % WARPS_N) * WN + (lane % WX) * FRAG;
  const long long m0 = static_cast<long long>(blockIdx.y) * BM;
  const long long n0 = static_cast<long long>(blockIdx.x) * BN;
  const bool b_vec = N % FRAG == 0;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }

#if ASYNC
  // The main loop is compiled once per B copy width, so that each keeps only its own
  // addresses in registers.
  if (N % 4 == 0) {
    async_loop<true>(acc, As, Bs, A, B, M, N, K, m0, n0, tid, row0, col0);
  } else {
    async_loop<false>(acc, As, Bs, A, B, M, N, K, m0, n0, tid, row0, col0);
  }
#else
  const int tiles = (K + BK - 1) / BK;
  const bool a_vec = K % FRAG == 0;
  // Tiles below `fast_tiles` load with no bounds tests: the block lies inside C, rows are
  // FRAG-aligned and the K tile is whole. Ragged blocks and the last partial K tile take the
  // guarded loads.
  const bool interior = m0 + BM <= M && n0 + BN <= N && a_vec && b_vec;
  const int fast_tiles = interior ? K / BK : 0;
  const float* a_tile = A + m0 * K;
  const float* b_tile = B + n0;
  const long long b_step = static_cast<long long>(BK) * N;
  Staged st;
#if STAGES >= 2
  if (fast_tiles > 0) {
    load_tiles_interior(st, a_tile, b_tile, N, K, tid);
  } else {
    load_tiles(st, A, B, M, N, K, m0, n0, 0, tid, a_vec, b_vec);
  }
  store_tiles(st, As[0], Bs[0], tid);
  __syncthreads();
  int t = 0;
  // The next tile's loads are in flight while this tile is computed. First the tiles whose
  // successor loads with no bounds tests (a loop of its own, so that it carries no guarded code).
#pragma unroll 1
  for (; t + 1 < fast_tiles; ++t) {
    const int cur = t & 1;
    a_tile += BK;
    b_tile += b_step;
    load_tiles_interior(st, a_tile, b_tile, N, K, tid);
    compute_tile(acc, As[cur], Bs[cur], row0, col0);
    store_tiles(st, As[cur ^ 1], Bs[cur ^ 1], tid);
    __syncthreads();
  }
#pragma unroll 1
  for (; t < tiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < tiles) {
      load_tiles(st, A, B, M, N, K, m0, n0, static_cast<long long>(t + 1) * BK, tid, a_vec,
                 b_vec);
    }
    compute_tile(acc, As[cur], Bs[cur], row0, col0);
    if (t + 1 < tiles) store_tiles(st, As[cur ^ 1], Bs[cur ^ 1], tid);
    __syncthreads();
  }
#else
  int t = 0;
#pragma unroll 1
  for (; t < fast_tiles; ++t) {
    load_tiles_interior(st, a_tile, b_tile, N, K, tid);
    a_tile += BK;
    b_tile += b_step;
    store_tiles(st, As[0], Bs[0], tid);
    __syncthreads();
    compute_tile(acc, As[0], Bs[0], row0, col0);
    __syncthreads();
  }
#pragma unroll 1
  for (; t < tiles; ++t) {
    load_tiles(st, A, B, M, N, K, m0, n0, static_cast<long long>(t) * BK, tid, a_vec, b_vec);
    store_tiles(st, As[0], Bs[0], tid);
    __syncthreads();
    compute_tile(acc, As[0], Bs[0], row0, col0);
    __syncthreads();
  }
#endif
#endif

#pragma unroll
  for (int gi = 0; gi < TM / FRAG; ++gi) {
#pragma unroll
    for (int qi = 0; qi < FRAG; ++qi) {
      const long long row = m0 + row0 + gi * WY * FRAG + qi;
      if (row >= M) continue;
#pragma unroll
      for (int gj = 0; gj < TN / FRAG; ++gj) {
        float v[FRAG];
#pragma unroll
        for (int qj = 0; qj < FRAG; ++qj) v[qj] = acc[gi * FRAG + qi][gj * FRAG + qj];
        gputune::store_guarded<FRAG>(C + row * N, n0 + col0 + gj * WX * FRAG, N, b_vec, v);
      }
    }
  }
}
