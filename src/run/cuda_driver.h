#pragma once
// The only code that talks to libcuda. The library is opened at run time (dlopen), so the
// binary starts, compiles and replays on a machine without a driver.
#include <cuda.h>
#include <cudaProfiler.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gputune/device.h"
#include "gputune/error.h"

namespace gputune::cuda {

// Each entry is looked up by the name cuda.h maps it to (cuMemAlloc -> cuMemAlloc_v2), so the
// pointer's type and the symbol's ABI agree.
// clang-format off
#define GPUTUNE_CUDA_FUNCTIONS(X)                                                              \
  X(cuInit)                                                                                    \
  X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount)              \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                \
  X(cuDeviceGetUuid) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                  \
  X(cuDevicePrimaryCtxReset) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemGetInfo)            \
  X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync)              \
  X(cuMemsetD8) X(cuMemsetD8Async) X(cuMemsetD32Async) X(cuModuleLoadData) X(cuModuleUnload)                      \
  X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel)         \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuEventCreate)                 \
  X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)                \
  X(cuProfilerStart) X(cuProfilerStop)
// clang-format on

struct Api {
#define GPUTUNE_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  GPUTUNE_CUDA_FUNCTIONS(GPUTUNE_CUDA_MEMBER)
#undef GPUTUNE_CUDA_MEMBER
};

// The driver, loaded and initialised once. Throws Error(kNoGpu) when there is no driver or no
// device; the message suggests --compile-only.
const Api& api();
// Same, but nullptr instead of throwing.
const Api* try_api() noexcept;

std::string cuda_error_name(CUresult result);  // "CUDA_ERROR_ILLEGAL_ADDRESS"
// After these errors the context is unusable: every later call fails the same way until it is
// destroyed and created anew.
bool is_sticky(CUresult result);

// A failed driver call. code() is kCuda; result() says which error.
class CudaError : public Error {
 public:
  CudaError(CUresult result, const std::string& what);
  CUresult result() const { return result_; }

 private:
  CUresult result_;
};

// Throws CudaError naming `what` and the error.
void check(CUresult result, const char* what);

// Marks the launches a profiler started with `--profile-from-start off` (ncu) collects: those
// between the two calls, in the current context. Without a profiler attached they do nothing.
void profiler_start();
void profiler_stop();

int device_count();  // 0 without a driver or a device; never throws
// Name, capability, memory and the per-SM limits the driver reports.
DeviceInfo query_device(int ordinal);
// Whether libcuda is loaded in this process (by gputune or anyone else), without loading it.
bool loaded_in_process();

struct MemoryInfo {
  size_t free_bytes = 0, total_bytes = 0;
};
MemoryInfo memory_info();  // of the current context

// The device's primary context, current on the constructing thread.
class Context {
 public:
  explicit Context(int ordinal);  // throws Error(kNoGpu) for a device that is not there
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  void make_current() const;
  // Destroys the context and everything allocated in it, then creates it anew: the way out of
  // a sticky error. Every resource of the old context must be released first.
  void reset();
  CUdevice device() const { return device_; }
  CUcontext get() const { return context_; }
  int attribute(CUdevice_attribute attribute) const;

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

class Stream;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  CUdeviceptr get() const { return pointer_; }
  size_t bytes() const { return bytes_; }
  void upload(const void* host) const;
  void download(void* host) const;
  void fill_bytes(unsigned char value) const;
  void fill_bytes_async(unsigned char value, const Stream& stream) const;  // stream-ordered
  // Stream-ordered: fills bytes() / 4 words; copies the smaller of the two sizes.
  void fill_words_async(uint32_t value, const Stream& stream) const;
  void copy_from_async(const DeviceBuffer& source, const Stream& stream) const;

 private:
  CUdeviceptr pointer_ = 0;
  size_t bytes_ = 0;
};

class Module {
 public:
  // Returns the load's result instead of throwing: a bad image is the variant's failure.
  static CUresult load(const std::string& image, Module* out);
  Module() = default;
  ~Module();
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;

  CUresult function(const std::string& name, CUfunction* out) const;

  // A __device__ or __constant__ variable of the module: where it is and its size.
  struct Global {
    CUdeviceptr pointer = 0;
    size_t bytes = 0;
  };
  // Returns the result instead of throwing: CUDA_ERROR_NOT_FOUND when the module lacks it.
  CUresult global(const std::string& name, Global* out) const;
  // Copies `bytes` (at most global.bytes) from the host into the variable; throws CudaError.
  static void upload(const Global& global, const void* host, size_t bytes);

 private:
  CUmodule module_ = nullptr;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return stream_; }
  // Throws CudaError naming `what`: an error of an earlier launch surfaces here.
  void synchronize(const char* what = "cuStreamSynchronize") const;

 private:
  CUstream stream_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }
  void record(CUstream stream) const;
  void synchronize() const;

 private:
  CUevent event_ = nullptr;
};

// Milliseconds between two recorded events.
float elapsed_ms(const Event& start, const Event& stop);

// A function's attribute; throws CudaError.
int function_attribute(CUfunction function, CUfunction_attribute attribute);
// Same, returning the result instead of throwing.
CUresult try_function_attribute(CUfunction function, CUfunction_attribute attribute, int* value);
CUresult set_function_attribute(CUfunction function, CUfunction_attribute attribute, int value);

using Dim3 = std::array<uint32_t, 3>;
// Queues one launch; returns the result instead of throwing (a bad launch is the variant's).
CUresult launch(CUfunction function, const Dim3& grid, const Dim3& block, uint32_t shared_bytes,
                const Stream& stream, void** params);

}  // namespace gputune::cuda
