#include "ceilings.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gputune::bench {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}
void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": cuBLAS status " +
                             std::to_string(static_cast<int>(status)));
  }
}

struct DeviceBuffer {
  explicit DeviceBuffer(size_t bytes) { check(cudaMalloc(&ptr, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  float* f() { return static_cast<float*>(ptr); }
  void* ptr = nullptr;
};

void fill_random(DeviceBuffer& buffer, size_t count, uint64_t seed) {
  std::vector<float> host(count);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto& x : host) x = dist(rng);
  check(cudaMemcpy(buffer.ptr, host.data(), count * sizeof(float), cudaMemcpyHostToDevice),
        "upload");
}

// Median milliseconds of `repeats` event-timed calls after `warmup` untimed ones.
template <class F>
double median_ms(F&& call, int warmup, int repeats) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(start), "record");
    call();
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "synchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    samples.push_back(ms);
  }
  check(cudaGetLastError(), "launch");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

struct Handle {
  Handle() {
    check(cublasCreate(&h), "cublasCreate");
    // Plain FP32 on CUDA cores: no TF32 tensor-core shortcut.
    check(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  }
  ~Handle() { cublasDestroy(h); }
  cublasHandle_t h;
};

}  // namespace

double copy_bandwidth_gbs(int64_t bytes) {
  DeviceBuffer a(bytes), b(bytes);
  check(cudaMemset(a.ptr, 1, bytes), "memset");
  double ms =
      median_ms([&] { cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice); }, 3, 20);
  return 2.0 * static_cast<double>(bytes) / (ms / 1e3) / 1e9;
}

double sgemm_gflops(int m, int n, int k) {
  Handle handle;
  DeviceBuffer a(sizeof(float) * m * k), b(sizeof(float) * k * n), c(sizeof(float) * m * n);
  fill_random(a, static_cast<size_t>(m) * k, 1);
  fill_random(b, static_cast<size_t>(k) * n, 2);
  const float alpha = 1, beta = 0;
  double ms = median_ms(
      [&] {
        check(cublasSgemm(handle.h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a.f(), m, b.f(), k,
                          &beta, c.f(), m),
              "cublasSgemm");
      },
      3, 10);
  return 2.0 * m * n * static_cast<double>(k) / (ms / 1e3) / 1e9;
}

double sgemv_ms(int m, int n) {
  Handle handle;
  DeviceBuffer a(sizeof(float) * m * n), x(sizeof(float) * n), y(sizeof(float) * m);
  fill_random(a, static_cast<size_t>(m) * n, 3);
  fill_random(x, n, 4);
  const float alpha = 1, beta = 0;
  // Row-major m x n A is column-major n x m: y = A x is the transposed product.
  return median_ms(
      [&] {
        check(cublasSgemv(handle.h, CUBLAS_OP_T, n, m, &alpha, a.f(), n, x.f(), 1, &beta, y.f(), 1),
              "cublasSgemv");
      },
      3, 20);
}

const char* cublas_version() {
  static std::string text = [] {
    int version = 0;
    cublasGetProperty(MAJOR_VERSION, &version);
    int minor = 0;
    cublasGetProperty(MINOR_VERSION, &minor);
    return std::to_string(version) + "." + std::to_string(minor);
  }();
  return text.c_str();
}

}  // namespace gputune::bench
