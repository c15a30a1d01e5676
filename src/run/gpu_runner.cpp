#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "process/ipc.h"
#include "run/cuda_driver.h"
#include "run/runner.h"

namespace gputune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Calls f with a value of the C++ type of `type` (only its type matters).
template <typename F>
auto visit_type(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kInt8:
      return f(int8_t{});
    case ScalarType::kInt16:
      return f(int16_t{});
    case ScalarType::kInt32:
      return f(int32_t{});
    case ScalarType::kInt64:
      return f(int64_t{});
    case ScalarType::kUint8:
      return f(uint8_t{});
    case ScalarType::kUint16:
      return f(uint16_t{});
    case ScalarType::kUint32:
      return f(uint32_t{});
    case ScalarType::kUint64:
      return f(uint64_t{});
    case ScalarType::kFloat32:
      return f(float{});
    case ScalarType::kFloat64:
      return f(double{});
  }
  throw Error(ErrorCode::kInternal, "unknown scalar type");
}

template <typename T>
T convert(double value) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else {
    return static_cast<T>(std::llround(value));
  }
}

// Given bytes (Fill::kData, ArgumentSpec::reference) must match the buffer's size exactly.
std::vector<unsigned char> given_bytes(const ArgumentSpec& argument, const SharedBytes& bytes,
                                       const char* what, uint64_t count) {
  const uint64_t expected = count * size_of(argument.type);
  if (!bytes || bytes->size() != expected) {
    throw Error(ErrorCode::kSpec, "argument '" + argument.name + "': the " + what + " has " +
                                      std::to_string(bytes ? bytes->size() : 0) + " bytes; " +
                                      std::to_string(count) + " " + type_name(argument.type) +
                                      " elements need " + std::to_string(expected));
  }
  return *bytes;
}

std::vector<unsigned char> host_fill(const ArgumentSpec& argument, ScalarType type,
                                     uint64_t count) {
  if (argument.fill == Fill::kData) return given_bytes(argument, argument.data, "data", count);
  std::vector<unsigned char> data(count * size_of(type));
  visit_type(type, [&](auto zero) {
    using T = decltype(zero);
    T* out = reinterpret_cast<T*>(data.data());
    switch (argument.fill) {
      case Fill::kZeros:
        std::fill(out, out + count, T{});
        break;
      case Fill::kConstant:
        std::fill(out, out + count, convert<T>(argument.fill_value));
        break;
      case Fill::kIota:
        for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<T>(i);
        break;
      case Fill::kData:  // returned above
        break;
      case Fill::kRandom: {
        std::mt19937_64 engine(argument.seed);
        std::uniform_real_distribution<double> uniform(argument.fill_low, argument.fill_high);
        for (uint64_t i = 0; i < count; ++i) {
          const double value = uniform(engine);
          if constexpr (std::is_floating_point_v<T>) {
            out[i] = static_cast<T>(value);
          } else {
            out[i] = static_cast<T>(std::floor(value));
          }
        }
        break;
      }
    }
    return 0;
  });
  return data;
}

std::string number_text(double value) {
  std::ostringstream text;
  text.precision(9);
  text << value;
  return text.str();
}

// Empty when every element passes; else what differs, for people.
std::string compare(const std::string& name, ScalarType type, const unsigned char* got,
                    const unsigned char* expected, uint64_t count, double rtol, double atol) {
  return visit_type(type, [&](auto zero) -> std::string {
    using T = decltype(zero);
    const T* g = reinterpret_cast<const T*>(got);
    const T* e = reinterpret_cast<const T*>(expected);
    uint64_t mismatches = 0, first = 0;
    for (uint64_t i = 0; i < count; ++i) {
      if (g[i] == e[i]) continue;  // also equal infinities; NaN never equals, so never passes
      const double x = static_cast<double>(g[i]), r = static_cast<double>(e[i]);
      if (std::isnan(x) || std::isnan(r) || !(std::fabs(x - r) <= atol + rtol * std::fabs(r))) {
        if (mismatches++ == 0) first = i;
      }
    }
    if (mismatches == 0) return "";
    return name + ": " + std::to_string(mismatches) + " of " + std::to_string(count) +
           " elements differ; first at index " + std::to_string(first) + ": got " +
           number_text(static_cast<double>(g[first])) + ", expected " +
           number_text(static_cast<double>(e[first])) + " (rtol " + number_text(rtol) + ", atol " +
           number_text(atol) + ")";
  });
}

uint64_t count_nan(ScalarType type, const std::vector<unsigned char>& data) {
  if (!is_floating(type)) return 0;
  return visit_type(type, [&](auto zero) -> uint64_t {
    using T = decltype(zero);
    const T* values = reinterpret_cast<const T*>(data.data());
    const uint64_t count = data.size() / sizeof(T);
    return static_cast<uint64_t>(std::count_if(
        values, values + count, [](T v) { return std::isnan(static_cast<double>(v)); }));
  });
}

double relative_standard_error(const std::vector<double>& samples) {
  const double n = static_cast<double>(samples.size());
  if (samples.size() < 2) return INFINITY;
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= n;
  double variance = 0;
  for (double s : samples) variance += (s - mean) * (s - mean);
  variance /= n - 1;
  return mean > 0 ? std::sqrt(variance) / std::sqrt(n) / mean : INFINITY;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

bool is_image_error(CUresult result) {
  return result == CUDA_ERROR_NO_BINARY_FOR_GPU || result == CUDA_ERROR_INVALID_IMAGE ||
         result == CUDA_ERROR_INVALID_PTX || result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND || result == CUDA_ERROR_INVALID_SOURCE;
}

// A buffer argument as the runner keeps it on the host: inputs' contents
// (uploaded again after a context reset) or, for outputs, the reference.
struct HostBuffer {
  BufferShape shape;
  bool output = false;
  bool scratch = false;  // passes data between launches: poisoned, never compared
  std::vector<unsigned char> data;
  bool given_reference = false;  // data is the spec's reference, not the baseline's output
};

// Everything that lives in the CUDA context; dropped and rebuilt after a sticky error.
struct DeviceState {
  cuda::Stream stream;
  cuda::Event start, stop;
  std::vector<cuda::DeviceBuffer> buffers;     // parallel to GpuRunner::host_
  cuda::DeviceBuffer flush;                    // written between samples to evict L2
  std::vector<cuda::DeviceBuffer> references;  // outputs' reference, for checking on the GPU
  std::map<int, std::pair<cuda::Module, CUfunction>> checkers;  // by ScalarType
  cuda::DeviceBuffer mismatches;                                // the checker's count
};

// Counts the elements of `got` that fail the check against `expected`, as compare() does on
// the host: equal passes, NaN never does, else |got - expected| <= atol + rtol |expected|.
constexpr char kCheckSource[] = R"(
template <typename T>
__global__ void gputune_check(const T* got, const T* expected, unsigned long long n,
                              double rtol, double atol, unsigned long long* mismatches) {
  unsigned long long count = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x +
                              threadIdx.x; i < n; i += stride) {
    const T g = got[i], e = expected[i];
    if (g == e) continue;
    const double x = static_cast<double>(g), r = static_cast<double>(e);
    if (x != x || r != r || !(fabs(x - r) <= atol + rtol * fabs(r))) ++count;
  }
  if (count != 0) atomicAdd(mismatches, count);
}
)";

const char* device_type_name(ScalarType type) {
  switch (type) {
    case ScalarType::kInt8:
      return "signed char";
    case ScalarType::kInt16:
      return "short";
    case ScalarType::kInt32:
      return "int";
    case ScalarType::kInt64:
      return "long long";
    case ScalarType::kUint8:
      return "unsigned char";
    case ScalarType::kUint16:
      return "unsigned short";
    case ScalarType::kUint32:
      return "unsigned int";
    case ScalarType::kUint64:
      return "unsigned long long";
    case ScalarType::kFloat32:
      return "float";
    case ScalarType::kFloat64:
      return "double";
  }
  return "float";
}

// The fewest samples kept when the time budget runs out before min_samples.
constexpr size_t kFewestSamples = 3;

class GpuRunner : public Runner {
 public:
  GpuRunner(const Problem& problem, int ordinal, const TimingOptions& timing)
      : timing_(timing),
        arguments_(problem.spec().arguments),
        rtol_(problem.spec().rtol),
        atol_(problem.spec().atol) {
    device_ = cuda::query_device(ordinal);  // throws kNoGpu first, before any allocation
    context_ = std::make_unique<cuda::Context>(ordinal);
    const std::vector<BufferShape> shapes = problem.buffers();
    size_t next = 0;
    for (const ArgumentSpec& argument : arguments_) {
      if (!argument.is_buffer) continue;
      if (next >= shapes.size()) throw Error(ErrorCode::kInternal, "fewer buffers than arguments");
      HostBuffer host{shapes[next++], argument.output, argument.scratch, {}};
      if (!host.output && !host.scratch) {
        host.data = host_fill(argument, host.shape.type, host.shape.count);
      }
      if (host.output && argument.reference) {
        host.data = given_bytes(argument, argument.reference, "reference", host.shape.count);
        host.given_reference = true;
      }
      host_.push_back(std::move(host));
    }
    setup_device();
  }

  ~GpuRunner() override {
    try {
      context_->make_current();
    } catch (...) {
    }
    state_.reset();
  }

  const DeviceInfo& device() const override { return device_; }

  Measurement set_reference(const Candidate& baseline) override {
    throw_if_lost();
    Measurement m = measure(baseline, /*is_reference=*/true);
    if (m.status != Status::kOk) {
      const ErrorCode code =
          m.status == Status::kRuntimeError ? ErrorCode::kCuda : ErrorCode::kSpec;
      throw Error(code, std::string("the baseline (") + baseline.variant.config + ") failed, " +
                            "so nothing can be checked: " + status_name(m.status) + ": " +
                            m.message);
    }
    for (const HostBuffer& host : host_) {
      if (!host.output || host.given_reference) continue;
      const uint64_t unwritten = count_nan(host.shape.type, host.data);
      if (unwritten > 0) {
        throw Error(ErrorCode::kSpec, "the baseline (" + baseline.variant.config + ") left " +
                                          std::to_string(unwritten) + " elements of '" +
                                          host.shape.name +
                                          "' NaN (unwritten after poisoning?), so nothing can "
                                          "be checked against it");
      }
    }
    prepare_device_check();
    has_reference_ = true;
    return m;
  }

  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    throw_if_lost();
    if (!has_reference_) throw Error(ErrorCode::kUsage, "run() before set_reference()");
    std::vector<Measurement> results;
    results.reserve(batch.size());
    for (const Candidate& candidate : batch) {
      results.push_back(measure(candidate, false));
      if (!lost_.empty()) break;  // the rest cannot run in this process
    }
    return results;
  }

  double measure_copy_bandwidth() override {
    throw_if_lost();
    const cuda::Api& api = cuda::api();
    context_->make_current();
    size_t free_bytes = 0, total_bytes = 0;
    cuda::check(api.cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
    constexpr size_t kMiB = size_t{1} << 20;
    const size_t bytes = std::min<size_t>(size_t{1} << 30, free_bytes / 4) / kMiB * kMiB;
    if (bytes == 0) throw Error(ErrorCode::kCuda, "no free GPU memory to measure copies with");
    cuda::DeviceBuffer source(bytes), destination(bytes);
    source.fill_bytes(0x3C);
    const CUstream stream = state_->stream.get();
    auto copy = [&] {
      cuda::check(api.cuMemcpyDtoDAsync(destination.get(), source.get(), bytes, stream),
                  "cuMemcpyDtoDAsync");
    };
    for (int i = 0; i < 3; ++i) copy();
    state_->stream.synchronize();
    std::vector<double> samples;
    for (int i = 0; i < 20; ++i) {
      state_->start.record(stream);
      copy();
      state_->stop.record(stream);
      state_->stop.synchronize();
      samples.push_back(cuda::elapsed_ms(state_->start, state_->stop));
    }
    return 2.0 * static_cast<double>(bytes) / (median(samples) * 1e6);
  }

 private:
  void setup_device() {
    state_ = std::make_unique<DeviceState>();
    for (const HostBuffer& host : host_) {
      state_->buffers.emplace_back(host.shape.count * size_of(host.shape.type));
      if (!host.output && !host.scratch) state_->buffers.back().upload(host.data.data());
    }
    if (timing_.flush_l2) {
      const size_t bytes = std::max<int64_t>(device_.l2_bytes, 1 << 20) * 2;
      state_->flush = cuda::DeviceBuffer(bytes / 4 * 4);
    }
    state_->stream.synchronize();
    if (has_reference_) load_device_check();
  }

  // Downloading a large output and walking it on the host costs more than measuring the
  // variant (256 MB at n = 8192), so outputs are checked where they are; the host compares
  // only when the GPU finds a mismatch (for the message) or the checker does not compile.
  void prepare_device_check() {
    for (const HostBuffer& host : host_) {
      const int type = static_cast<int>(host.shape.type);
      if (!host.output || checker_images_.count(type)) continue;
      CompileRequest request;
      request.source = kCheckSource;
      request.source_name = "gputune_check.cu";
      request.kernel_name_expressions = {std::string("gputune_check<") +
                                         device_type_name(host.shape.type) + ">"};
      request.arch = device_.arch();
      CompiledKernel kernel;
      try {
        kernel = make_nvrtc_compiler()->compile(request);
      } catch (const Error&) {
      }
      checker_images_[type] = kernel.ok ? std::make_pair(kernel.image, kernel.lowered_names[0])
                                        : std::make_pair(std::string(), std::string());
    }
    load_device_check();
  }

  void load_device_check() {
    state_->references.clear();
    state_->checkers.clear();
    for (const HostBuffer& host : host_) {
      state_->references.emplace_back();
      if (!host.output || host.data.empty()) continue;
      state_->references.back() = cuda::DeviceBuffer(host.data.size());
      state_->references.back().upload(host.data.data());
    }
    state_->mismatches = cuda::DeviceBuffer(sizeof(uint64_t));
    for (const auto& [type, image] : checker_images_) {
      if (image.first.empty()) continue;
      cuda::Module module;
      CUfunction function = nullptr;
      if (cuda::Module::load(image.first, &module) != CUDA_SUCCESS ||
          module.function(image.second, &function) != CUDA_SUCCESS) {
        continue;
      }
      state_->checkers.emplace(type, std::make_pair(std::move(module), function));
    }
  }

  // True when every element of output i passes the check against the reference.
  bool matches_on_device(size_t i) {
    const HostBuffer& host = host_[i];
    const auto checker = state_->checkers.find(static_cast<int>(host.shape.type));
    if (checker == state_->checkers.end() || i >= state_->references.size() ||
        state_->references[i].bytes() != state_->buffers[i].bytes()) {
      return false;
    }
    CUdeviceptr got = state_->buffers[i].get(), expected = state_->references[i].get();
    CUdeviceptr mismatches = state_->mismatches.get();
    unsigned long long n = host.shape.count;
    double rtol = rtol_, atol = atol_;
    void* params[] = {&got, &expected, &n, &rtol, &atol, &mismatches};
    constexpr unsigned kThreads = 256;
    const uint64_t blocks = std::max<uint64_t>(
        1, std::min<uint64_t>((n + kThreads - 1) / kThreads, uint64_t{16} * device_.sm_count));
    state_->mismatches.fill_bytes(0);
    cuda::check(
        cuda::api().cuLaunchKernel(checker->second.second, static_cast<unsigned>(blocks), 1, 1,
                                   kThreads, 1, 1, 0, state_->stream.get(), params, nullptr),
        "cuLaunchKernel (output check)");
    state_->stream.synchronize();
    uint64_t count = 1;
    state_->mismatches.download(&count);
    return count == 0;
  }

  // The way out of a sticky error: everything in the context goes, then comes back. The
  // 580 driver refuses this (the whole process stays poisoned, as its documentation says), so
  // failing is expected: the runner is then lost, and only a new process can go on.
  void recover(const Measurement& failed) {
    state_.reset();
    try {
      context_->reset();
      setup_device();
    } catch (const Error& e) {
      lost_ = "the GPU is unusable in this process after " + failed.message + " in variant " +
              failed.config + " (" + e.what() +
              "; the driver cannot recover from this error in the same process). Run again: "
              "what was measured is stored and is not measured twice";
    }
  }

  void throw_if_lost() const {
    if (!lost_.empty()) throw Error(ErrorCode::kCuda, lost_);
  }

  Measurement measure(const Candidate& candidate, bool is_reference) {
    Measurement m;
    m.config_index = candidate.variant.index;
    m.config = candidate.variant.config;
    m.compile_ms = candidate.kernel.compile_ms;
    m.registers = candidate.kernel.registers;
    m.shared_bytes = candidate.kernel.shared_bytes;
    m.spill_bytes = candidate.kernel.spill_bytes;
    if (!candidate.kernel.ok) {
      m.status = Status::kCompileError;
      m.message = candidate.kernel.log;
      return m;
    }
    const auto start = Clock::now();
    try {
      context_->make_current();
      evaluate(candidate, is_reference, &m);
    } catch (const cuda::CudaError& e) {
      m.status = Status::kRuntimeError;
      m.message = e.what();
      m.samples_ms.clear();
      if (cuda::is_sticky(e.result())) recover(m);
    }
    m.check_ms = std::max(0.0, seconds_since(start) * 1e3 - m.time_ms);  // all but the timing
    return m;
  }

  // A variant's launches, ready to go: each with its function and argument slots.
  struct Prepared {
    struct Call {
      const Launch* launch = nullptr;
      CUfunction function = nullptr;
      std::vector<uint64_t> slots;  // each argument's bytes: a device pointer or a scalar
      std::vector<void*> params;    // pointers into slots, as cuLaunchKernel takes them
    };
    std::vector<Call> calls;
  };

  // Launches every call in order; the first failure stops and is returned.
  CUresult launch_all(Prepared& prepared) const {
    for (Prepared::Call& call : prepared.calls) {
      const Launch& l = *call.launch;
      const CUresult result = cuda::api().cuLaunchKernel(
          call.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
          l.dynamic_shared_bytes, state_->stream.get(), call.params.data(), nullptr);
      if (result != CUDA_SUCCESS) return result;
    }
    return CUDA_SUCCESS;
  }

  void launch_all_or_throw(Prepared& prepared) const {
    cuda::check(launch_all(prepared), "cuLaunchKernel");
  }

  // The bytes of spec argument `a` as a kernel parameter: its buffer's device pointer or its
  // scalar value converted to its type.
  uint64_t argument_slot(size_t a, const Variant& v) const {
    uint64_t slot = 0;
    size_t buffer = 0, scalar = 0;
    for (size_t i = 0; i < a; ++i) (arguments_[i].is_buffer ? buffer : scalar) += 1;
    const ArgumentSpec& argument = arguments_[a];
    if (argument.is_buffer) {
      const CUdeviceptr pointer = state_->buffers[buffer].get();
      std::memcpy(&slot, &pointer, sizeof(pointer));
      return slot;
    }
    if (scalar >= v.scalar_arguments.size()) {
      throw Error(ErrorCode::kInternal, "the variant lacks scalar argument " + argument.name);
    }
    visit_type(argument.type, [&](auto zero) {
      const auto converted = convert<decltype(zero)>(v.scalar_arguments[scalar]);
      std::memcpy(&slot, &converted, sizeof(converted));
      return 0;
    });
    return slot;
  }

  // Fills m; a CUDA failure propagates as CudaError, which measure() turns into the Status.
  void evaluate(const Candidate& candidate, bool is_reference, Measurement* m) {
    const cuda::Api& api = cuda::api();
    const Variant& v = candidate.variant;
    auto fail = [m](Status status, const std::string& message) {
      m->status = status;
      m->message = message;
    };

    cuda::Module module;
    CUresult result = cuda::Module::load(candidate.kernel.image, &module);
    if (result != CUDA_SUCCESS) {
      if (!is_image_error(result)) throw cuda::CudaError(result, "cuModuleLoadData");
      return fail(Status::kCompileError, "cuModuleLoadData: " + cuda::cuda_error_name(result) +
                                             " (compiled for another architecture?)");
    }
    const CompiledKernel& kernel = candidate.kernel;
    std::vector<CUfunction> functions;
    for (const std::string& name : kernel.lowered_names) {
      CUfunction function = nullptr;
      result = module.function(name, &function);
      if (result != CUDA_SUCCESS) {
        return fail(Status::kCompileError,
                    "no kernel '" + name + "' in the module: " + cuda::cuda_error_name(result));
      }
      functions.push_back(function);
    }

    // ptxas's log says what a kernel uses; where it did not (an unparsed log), the loaded
    // functions do.
    if (m->registers == 0) {
      for (CUfunction function : functions) {
        int value = 0;
        if (api.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, function) == CUDA_SUCCESS) {
          m->registers = std::max(m->registers, value);
        }
        if (api.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) ==
            CUDA_SUCCESS) {
          m->shared_bytes = std::max(m->shared_bytes, value);
        }
      }
    }

    Prepared prepared;
    for (const Launch& launch : v.launches) {
      if (launch.kernel >= functions.size()) {
        throw Error(ErrorCode::kInternal, "a launch names kernel " + std::to_string(launch.kernel) +
                                              " of " + std::to_string(functions.size()) +
                                              " compiled");
      }
      Prepared::Call& call = prepared.calls.emplace_back();
      call.launch = &launch;
      call.function = functions[launch.kernel];
      if (std::string why = check_resources(call.function, launch); !why.empty()) {
        if (v.launches.size() > 1) {
          why = v.kernel_name_expressions[launch.kernel] + " (launch " +
                std::to_string(prepared.calls.size()) + "): " + why;
        }
        return fail(Status::kResourceExceeded, why);
      }
      for (size_t a : launch.arguments) call.slots.push_back(argument_slot(a, v));
    }
    for (Prepared::Call& call : prepared.calls) {
      for (uint64_t& slot : call.slots) call.params.push_back(&slot);
    }

    for (size_t i = 0; i < host_.size(); ++i) {
      if (host_[i].output || host_[i].scratch) {
        state_->buffers[i].fill_bytes(is_floating(host_[i].shape.type) ? 0xFF : 0xA5);
      }
    }
    result = launch_all(prepared);
    if (result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || result == CUDA_ERROR_INVALID_VALUE) {
      return fail(Status::kResourceExceeded, "cuLaunchKernel: " + cuda::cuda_error_name(result));
    }
    cuda::check(result, "cuLaunchKernel");
    cuda::check(api.cuStreamSynchronize(state_->stream.get()), "kernel execution");

    std::string mismatch;
    for (size_t i = 0; i < host_.size(); ++i) {
      HostBuffer& host = host_[i];
      if (!host.output) continue;
      if (is_reference && !host.given_reference) {
        host.data.resize(state_->buffers[i].bytes());
        state_->buffers[i].download(host.data.data());
        continue;
      }
      if (!is_reference && matches_on_device(i)) continue;
      std::vector<unsigned char> got(state_->buffers[i].bytes());
      state_->buffers[i].download(got.data());
      std::string diff = compare(host.shape.name, host.shape.type, got.data(), host.data.data(),
                                 host.shape.count, rtol_, atol_);
      if (!diff.empty()) mismatch += (mismatch.empty() ? "" : "; ") + diff;
    }
    if (!mismatch.empty()) return fail(Status::kWrongAnswer, mismatch);

    const auto timing_start = Clock::now();
    time(prepared, &m->samples_ms);
    m->time_ms = seconds_since(timing_start) * 1e3;
    m->status = Status::kOk;
  }

  // Empty when the launch fits the kernel and the device; else why not.
  std::string check_resources(CUfunction function, const Launch& launch) {
    const cuda::Api& api = cuda::api();
    auto function_attribute = [&](CUfunction_attribute which) {
      int value = 0;
      cuda::check(api.cuFuncGetAttribute(&value, which, function), "cuFuncGetAttribute");
      return value;
    };
    const uint64_t threads = uint64_t{launch.block[0]} * launch.block[1] * launch.block[2];
    const int max_threads = function_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    if (threads > static_cast<uint64_t>(max_threads)) {
      return "a block of " + std::to_string(threads) + " threads exceeds this kernel's limit of " +
             std::to_string(max_threads) + " (" +
             std::to_string(function_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)) +
             " registers per thread)";
    }
    static const CUdevice_attribute kBlockLimits[] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
    static const CUdevice_attribute kGridLimits[] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    static const char kAxis[] = "xyz";
    for (int d = 0; d < 3; ++d) {
      const int block_limit = context_->attribute(kBlockLimits[d]);
      if (launch.block[d] > static_cast<uint32_t>(block_limit)) {
        return std::string("block ") + kAxis[d] + " = " + std::to_string(launch.block[d]) +
               " exceeds the device's " + std::to_string(block_limit);
      }
      const int grid_limit = context_->attribute(kGridLimits[d]);
      if (launch.grid[d] > static_cast<uint32_t>(grid_limit)) {
        return std::string("grid ") + kAxis[d] + " = " + std::to_string(launch.grid[d]) +
               " exceeds the device's " + std::to_string(grid_limit);
      }
    }
    const int static_shared = function_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    const int shared_limit =
        context_->attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    const int64_t shared = int64_t{static_shared} + launch.dynamic_shared_bytes;
    if (shared > shared_limit) {
      return std::to_string(shared) + " bytes of shared memory (" + std::to_string(static_shared) +
             " static) exceed the device's " + std::to_string(shared_limit) + " per block";
    }
    // Above the default dynamic limit (48 KB less the static part) a kernel must opt in.
    const int default_dynamic = function_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    if (launch.dynamic_shared_bytes > static_cast<uint32_t>(default_dynamic)) {
      const CUresult result =
          api.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(launch.dynamic_shared_bytes));
      if (result != CUDA_SUCCESS) {
        return "cannot raise dynamic shared memory to " +
               std::to_string(launch.dynamic_shared_bytes) +
               " bytes: " + cuda::cuda_error_name(result);
      }
    }
    return "";
  }

  // Event-timed launches, one per sample, until the noise, the sample count or
  // the time budget says stop.
  void time(Prepared& prepared, std::vector<double>* samples) {
    const cuda::Api& api = cuda::api();
    const CUstream stream = state_->stream.get();
    const auto warmup_start = Clock::now();
    do {
      launch_all_or_throw(prepared);
      state_->stream.synchronize();
    } while (seconds_since(warmup_start) * 1e3 < timing_.warmup_ms);

    const auto start = Clock::now();
    const size_t min_samples = static_cast<size_t>(std::max(timing_.min_samples, 1));
    const size_t max_samples = std::max(min_samples, static_cast<size_t>(timing_.max_samples));
    uint32_t stamp = 0;
    for (;;) {
      if (timing_.flush_l2) {
        cuda::check(
            api.cuMemsetD32Async(state_->flush.get(), ++stamp, state_->flush.bytes() / 4, stream),
            "cuMemsetD32Async");
      }
      state_->start.record(stream);
      launch_all_or_throw(prepared);
      state_->stop.record(stream);
      state_->stop.synchronize();
      samples->push_back(cuda::elapsed_ms(state_->start, state_->stop));
      const size_t n = samples->size();
      if (n >= max_samples) break;
      if (n >= min_samples && relative_standard_error(*samples) < timing_.target_noise) break;
      if (n >= std::min(min_samples, kFewestSamples) &&
          seconds_since(start) >= timing_.max_seconds) {
        break;
      }
    }
  }

  TimingOptions timing_;
  std::vector<ArgumentSpec> arguments_;
  double rtol_, atol_;
  DeviceInfo device_;
  std::unique_ptr<cuda::Context> context_;
  std::vector<HostBuffer> host_;
  std::unique_ptr<DeviceState> state_;
  std::map<int, std::pair<std::string, std::string>> checker_images_;  // cubin, lowered name
  bool has_reference_ = false;
  std::string lost_;  // why the context is gone for good; empty while it works
};

}  // namespace

std::unique_ptr<Runner> make_gpu_runner(const Problem& problem, int device_ordinal,
                                        const TimingOptions& timing) {
  return std::make_unique<GpuRunner>(problem, device_ordinal, timing);
}

namespace {

std::vector<DeviceInfo> list_gpus_here() {
  std::vector<DeviceInfo> gpus;
  const int count = cuda::device_count();
  for (int i = 0; i < count; ++i) {
    try {
      gpus.push_back(cuda::query_device(i));
    } catch (const Error&) {
    }
  }
  return gpus;
}

// Asks a short-lived child: CUDA initialised here would not survive a later fork().
std::vector<DeviceInfo> list_gpus_in_child() {
  ipc::Child child = ipc::spawn([](int fd) {
    ipc::Writer w;
    const std::vector<DeviceInfo> gpus = list_gpus_here();
    w.u64(gpus.size());
    for (const DeviceInfo& gpu : gpus) ipc::put(w, gpu);
    ipc::write_frame(fd, 1, w.data());
    return 0;
  });
  std::vector<DeviceInfo> gpus;
  uint32_t type = 0;
  std::string payload;
  constexpr int kWaitMs = 60000;
  if (!ipc::readable({child.fd}, kWaitMs).empty() && ipc::read_frame(child.fd, &type, &payload)) {
    try {
      ipc::Reader r(payload);
      for (uint64_t n = r.u64(); n > 0; --n) {
        gpus.emplace_back();
        ipc::get(r, &gpus.back());
      }
    } catch (const Error&) {
      gpus.clear();
    }
  }
  ipc::end_child(&child, 5.0);
  return gpus;
}

}  // namespace

std::vector<DeviceInfo> list_gpus() {
  // Once this process has loaded the driver, it has initialised CUDA too, and a child could
  // not use it: ask here.
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(driver);
    return list_gpus_here();
  }
  return list_gpus_in_child();
}

}  // namespace gputune
