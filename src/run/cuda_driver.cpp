#include "run/cuda_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <utility>

namespace gputune::cuda {
namespace {

#define GPUTUNE_STR2(x) #x
#define GPUTUNE_STR(x) GPUTUNE_STR2(x)

const char kCompileOnlyHint[] =
    "Measuring needs an NVIDIA GPU and its driver; use --compile-only to check that the "
    "variants compile without one.";

struct Loaded {
  Api api;
  bool ok = false;
  std::string error;  // why there is no usable driver
};

Loaded load() {
  Loaded loaded;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    loaded.error = std::string("no NVIDIA driver: cannot load libcuda.so.1 (") +
                   (why != nullptr ? why : "not found") + "). " + kCompileOnlyHint;
    return loaded;
  }
  // The library stays loaded for the life of the process: contexts outlive nothing else.
#define GPUTUNE_CUDA_RESOLVE(name)                                                    \
  loaded.api.name =                                                                   \
      reinterpret_cast<decltype(loaded.api.name)>(dlsym(library, GPUTUNE_STR(name))); \
  if (loaded.api.name == nullptr) {                                                   \
    loaded.error = std::string("the NVIDIA driver is too old: libcuda.so.1 lacks ") + \
                   GPUTUNE_STR(name) + ". " + kCompileOnlyHint;                       \
    return loaded;                                                                    \
  }
  GPUTUNE_CUDA_FUNCTIONS(GPUTUNE_CUDA_RESOLVE)
#undef GPUTUNE_CUDA_RESOLVE

  const CUresult init = loaded.api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    loaded.api.cuGetErrorName(init, &name);
    loaded.error = std::string("no usable GPU: cuInit failed with ") +
                   (name != nullptr ? name : "error " + std::to_string(init)) + ". " +
                   kCompileOnlyHint;
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

const Loaded& loaded() {
  static const Loaded instance = load();
  return instance;
}

}  // namespace

const Api* try_api() noexcept {
  try {
    const Loaded& l = loaded();
    return l.ok ? &l.api : nullptr;
  } catch (...) {
    return nullptr;
  }
}

const Api& api() {
  const Loaded& l = loaded();
  if (!l.ok) throw Error(ErrorCode::kNoGpu, l.error);
  return l.api;
}

std::string cuda_error_name(CUresult result) {
  const Loaded& l = loaded();
  const char* name = nullptr;
  if (l.api.cuGetErrorName != nullptr && l.api.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
      name != nullptr) {
    return name;
  }
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

bool is_sticky(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

CudaError::CudaError(CUresult result, const std::string& what)
    : Error(ErrorCode::kCuda, what + ": " + cuda_error_name(result)), result_(result) {}

void check(CUresult result, const char* what) {
  if (result != CUDA_SUCCESS) throw CudaError(result, what);
}

// Best effort: a range that fails to open costs the profile, not the launch.
void profiler_start() { (void)api().cuProfilerStart(); }
void profiler_stop() { (void)api().cuProfilerStop(); }

int device_count() {
  const Api* a = try_api();
  int count = 0;
  if (a == nullptr || a->cuDeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

DeviceInfo query_device(int ordinal) {
  const Api& a = api();
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw Error(ErrorCode::kNoGpu, "no GPU " + std::to_string(ordinal) + ": the driver sees " +
                                       std::to_string(count) + ". " + kCompileOnlyHint);
  }
  CUdevice device = 0;
  check(a.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  check(a.cuDeviceGetName(name, sizeof(name), device), "cuDeviceGetName");
  info.name = name;
  CUuuid uuid{};
  check(a.cuDeviceGetUuid(&uuid, device), "cuDeviceGetUuid");
  // Written as nvidia-smi writes it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
  }
  info.uuid = text;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(a.cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
    return value;
  };
  info.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  size_t memory = 0;
  check(a.cuDeviceTotalMem(&memory, device), "cuDeviceTotalMem");
  info.memory_bytes = static_cast<int64_t>(memory);
  check(a.cuDriverGetVersion(&info.driver_version), "cuDriverGetVersion");
  SmLimits& sm = info.sm_limits;
  sm.registers = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  sm.threads = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  sm.blocks = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  sm.shared_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  sm.reserved_shared_bytes_per_block =
      attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  // The register allocation unit is not a driver attribute: left to the capability's table.
  return info;
}

bool loaded_in_process() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == nullptr) return false;
  dlclose(driver);
  return true;
}

MemoryInfo memory_info() {
  MemoryInfo info;
  check(api().cuMemGetInfo(&info.free_bytes, &info.total_bytes), "cuMemGetInfo");
  return info;
}

Context::Context(int ordinal) {
  const Api& a = api();
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw Error(ErrorCode::kNoGpu, "no GPU " + std::to_string(ordinal) + ": the driver sees " +
                                       std::to_string(count) + ". " + kCompileOnlyHint);
  }
  check(a.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(a.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  make_current();
}

Context::~Context() {
  if (context_ != nullptr) api().cuDevicePrimaryCtxRelease(device_);
}

void Context::make_current() const { check(api().cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }

void Context::reset() {
  const Api& a = api();
  a.cuCtxSetCurrent(nullptr);
  a.cuDevicePrimaryCtxRelease(device_);
  context_ = nullptr;
  check(a.cuDevicePrimaryCtxReset(device_), "cuDevicePrimaryCtxReset");
  check(a.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  make_current();
}

int Context::attribute(CUdevice_attribute attribute) const {
  int value = 0;
  check(api().cuDeviceGetAttribute(&value, attribute, device_), "cuDeviceGetAttribute");
  return value;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  // A zero-byte argument still gets a distinct, valid address.
  check(api().cuMemAlloc(&pointer_, bytes == 0 ? 1 : bytes), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer_ != 0) api().cuMemFree(pointer_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (pointer_ != 0) api().cuMemFree(pointer_);
    pointer_ = std::exchange(other.pointer_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host) const {
  if (bytes_ > 0) check(api().cuMemcpyHtoD(pointer_, host, bytes_), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void* host) const {
  if (bytes_ > 0) check(api().cuMemcpyDtoH(host, pointer_, bytes_), "cuMemcpyDtoH");
}

void DeviceBuffer::fill_bytes(unsigned char value) const {
  if (bytes_ > 0) check(api().cuMemsetD8(pointer_, value, bytes_), "cuMemsetD8");
}

void DeviceBuffer::fill_bytes_async(unsigned char value, const Stream& stream) const {
  if (bytes_ > 0) {
    check(api().cuMemsetD8Async(pointer_, value, bytes_, stream.get()), "cuMemsetD8Async");
  }
}

void DeviceBuffer::fill_words_async(uint32_t value, const Stream& stream) const {
  if (bytes_ >= 4) {
    check(api().cuMemsetD32Async(pointer_, value, bytes_ / 4, stream.get()), "cuMemsetD32Async");
  }
}

void DeviceBuffer::copy_from_async(const DeviceBuffer& source, const Stream& stream) const {
  const size_t bytes = std::min(bytes_, source.bytes_);
  if (bytes > 0) {
    check(api().cuMemcpyDtoDAsync(pointer_, source.pointer_, bytes, stream.get()),
          "cuMemcpyDtoDAsync");
  }
}

CUresult Module::load(const std::string& image, Module* out) {
  CUmodule module = nullptr;
  const CUresult result = api().cuModuleLoadData(&module, image.data());
  if (result == CUDA_SUCCESS) {
    Module loaded;
    loaded.module_ = module;
    *out = std::move(loaded);
  }
  return result;
}

Module::~Module() {
  if (module_ != nullptr) api().cuModuleUnload(module_);
}

Module::Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    if (module_ != nullptr) api().cuModuleUnload(module_);
    module_ = std::exchange(other.module_, nullptr);
  }
  return *this;
}

CUresult Module::function(const std::string& name, CUfunction* out) const {
  return api().cuModuleGetFunction(out, module_, name.c_str());
}

CUresult Module::global(const std::string& name, Global* out) const {
  return api().cuModuleGetGlobal(&out->pointer, &out->bytes, module_, name.c_str());
}

void Module::upload(const Global& global, const void* host, size_t bytes) {
  if (bytes > global.bytes) {
    throw Error(ErrorCode::kInternal, "a copy of " + std::to_string(bytes) +
                                          " bytes into a module variable of " +
                                          std::to_string(global.bytes));
  }
  if (bytes > 0) check(api().cuMemcpyHtoD(global.pointer, host, bytes), "cuMemcpyHtoD");
}

// A blocking stream: it stays ordered after the legacy-stream memsets and copies (poisoning,
// uploads) without an explicit wait.
Stream::Stream() { check(api().cuStreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate"); }

Stream::~Stream() {
  if (stream_ != nullptr) api().cuStreamDestroy(stream_);
}

void Stream::synchronize(const char* what) const {
  check(api().cuStreamSynchronize(stream_), what);
}

Event::Event() { check(api().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate"); }

Event::~Event() {
  if (event_ != nullptr) api().cuEventDestroy(event_);
}

void Event::record(CUstream stream) const {
  check(api().cuEventRecord(event_, stream), "cuEventRecord");
}

void Event::synchronize() const { check(api().cuEventSynchronize(event_), "cuEventSynchronize"); }

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  check(api().cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
  return ms;
}

int function_attribute(CUfunction function, CUfunction_attribute attribute) {
  int value = 0;
  check(try_function_attribute(function, attribute, &value), "cuFuncGetAttribute");
  return value;
}

CUresult try_function_attribute(CUfunction function, CUfunction_attribute attribute, int* value) {
  return api().cuFuncGetAttribute(value, attribute, function);
}

CUresult set_function_attribute(CUfunction function, CUfunction_attribute attribute, int value) {
  return api().cuFuncSetAttribute(function, attribute, value);
}

CUresult launch(CUfunction function, const Dim3& grid, const Dim3& block, uint32_t shared_bytes,
                const Stream& stream, void** params) {
  return api().cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                              shared_bytes, stream.get(), params, nullptr);
}

}  // namespace gputune::cuda
