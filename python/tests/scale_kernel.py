"""A small kernel the tests tune: out = a * x, ITEMS elements per thread."""

import numpy as np

SOURCE = r"""
extern "C" __global__ void scale(float* out, const float* x, float a, int n) {
#if BROKEN
  this does not compile;
#endif
  const long long first = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * ITEMS;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if (first + k < n) out[first + k] = a * x[first + k];
  }
}
"""

N = 1 << 16


def arguments(n=N, seed=0):
    x = np.random.default_rng(seed).random(n, dtype=np.float32)
    return x, {"out": None, "x": x, "a": np.float32(2.5), "n": "n"}


def tune_kwargs(n=N, **extra):
    import gputune
    x, args = arguments(n)
    args["out"] = gputune.Out(np.empty(n, np.float32))
    kwargs = dict(source=SOURCE, name="scale", params={"THREADS": [64, 128, 256], "ITEMS": [1, 2, 4]},
                  args=args, block=["THREADS"], grid=["ceil(n / (THREADS * ITEMS))"],
                  problem={"n": n}, bytes="8 * n", progress=False)
    kwargs.update(extra)
    return x, kwargs
