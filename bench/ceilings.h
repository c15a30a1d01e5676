#pragma once
#include <cstdint>

namespace gputune::bench {

// Reference ceilings measured on the GPU the benchmark runs on, with cuBLAS and the CUDA
// runtime, each the median of timed repetitions after a warm-up, on random data.
double copy_bandwidth_gbs(int64_t bytes);  // read + write counted
double sgemm_gflops(int m, int n, int k);  // FP32, TF32 off
double sgemv_ms(int m, int n);             // y = A x, row-major A
const char* cublas_version();

}  // namespace gputune::bench
