// The run-time library's use of the GPU: describing the current device, loading a selected
// config's embedded code and launching it, and the little device memory the example needs.
// Everything goes through run/cuda_driver, which opens libcuda only on first use.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "core/occupancy.h"
#include "run/cuda_driver.h"
#include "runtime/code_entries.h"
#include "runtime/selector_state.h"

namespace gputune::runtime {

struct LoadedCode {
  cuda::Module module;
  std::string target;
  std::vector<CUfunction> functions;  // per launch
};

namespace {

// The primary context of each device used, current on the calling thread. Kept for the life of
// the process: modules loaded into it outlive every selector.
void make_current(int ordinal) {
  static std::mutex mutex;
  static std::map<int, cuda::Context*> contexts;
  cuda::Context* context = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = contexts[ordinal];
    if (slot == nullptr) slot = new cuda::Context(ordinal);
    context = slot;
  }
  context->make_current();
}

// Translates the driver wrapper's errors into the public ones.
template <typename Body>
auto guarded(Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const RuntimeError&) {
    throw;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kNoGpu) {
      // The driver wrapper's advice is for gputune's command line, not an application's.
      std::string message = e.what();
      message = message.substr(0, message.find(" Measuring needs"));
      throw NoGpuError(message);
    }
    throw RuntimeError(e.what());
  }
}

int arch_number(const std::string& target, const char* prefix) {
  if (target.rfind(prefix, 0) != 0) return -1;
  try {
    return std::stoi(target.substr(std::string(prefix).size()));
  } catch (...) {
    return -1;
  }
}

// The image to load on a device: its own architecture's cubin, else the newest PTX it can
// compile, else a cubin of the same major version and an older minor one.
const ReleaseCode* pick(const std::vector<ReleaseCode>& code, int device_arch) {
  const ReleaseCode* best = nullptr;
  int best_rank = -1;
  for (const ReleaseCode& c : code) {
    int rank = -1;
    if (c.kind == "cubin" && arch_number(c.target, "sm_") == device_arch) {
      rank = 3000;
    } else if (c.kind == "ptx") {
      const int arch = arch_number(c.target, "compute_");
      if (arch > 0 && arch <= device_arch) rank = 2000 + arch;
    } else if (c.kind == "cubin") {
      const int arch = arch_number(c.target, "sm_");
      if (arch > 0 && arch / 10 == device_arch / 10 && arch <= device_arch) rank = 1000 + arch;
    }
    if (rank > best_rank) {
      best_rank = rank;
      best = &c;
    }
  }
  return best;
}

}  // namespace

DeviceDescription DeviceDescription::described(std::string name, int cc_major, int cc_minor,
                                               int sm_count) {
  DeviceDescription d;
  d.name = std::move(name);
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  d.sm_count = sm_count;
  const SmLimits limits = documented_sm_limits(cc_major, cc_minor);
  d.max_shared_bytes_per_block = limits.shared_bytes - limits.reserved_shared_bytes_per_block;
  d.max_registers_per_block = limits.registers;
  return d;
}

DeviceDescription DeviceDescription::current(int ordinal) {
  return guarded([&] {
    const DeviceInfo info = cuda::query_device(ordinal);
    DeviceDescription d = described(info.name, info.cc_major, info.cc_minor, info.sm_count);
    d.ordinal = ordinal;
    CUdevice device = 0;
    const cuda::Api& api = cuda::api();
    cuda::check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
    auto attribute = [&](CUdevice_attribute which) {
      int value = 0;
      cuda::check(api.cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
      return value;
    };
    d.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.max_registers_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.max_shared_bytes_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    return d;
  });
}

void* Selection::load(size_t index) const {
  if (!has_code() || state_ == nullptr || layer_index_ < 0) {
    throw RuntimeError("no embedded code for this selection (" + std::string(tier_name(tier)) +
                       " tier from " + (layer.empty() ? "no layer" : layer) +
                       "): build the release database with --embed " + device_arch_ +
                       ", or compile the kernel yourself with this config");
  }
  if (index >= launches.size()) {
    throw RuntimeError("launch " + std::to_string(index) + " of " +
                       std::to_string(launches.size()));
  }
  if (device_ordinal_ < 0) {
    throw RuntimeError(
        "the selection was made for a described device, not a live one: select "
        "with DeviceDescription::current() to load code");
  }
  return guarded([&]() -> void* {
    make_current(device_ordinal_);
    std::shared_ptr<LoadedCode> loaded;
    const std::pair<size_t, int64_t> key{static_cast<size_t>(layer_index_), code_config_id_};
    std::lock_guard<std::mutex> lock(state_->lazy_mutex);
    auto& slot = state_->code[key];
    if (!slot) {
      const ReleaseFile& file = *state_->layers[static_cast<size_t>(layer_index_)];
      const std::vector<ReleaseCode> code = file.code(code_config_id_);
      const int arch = std::stoi(device_arch_.substr(3));
      const ReleaseCode* image = pick(code, arch);
      if (image == nullptr) {
        std::string targets;
        for (const ReleaseCode& c : code) targets += (targets.empty() ? "" : ", ") + c.target;
        throw RuntimeError(file.path() + " embeds this config for " + targets + ", none of " +
                           "which runs on " + device_arch_ + ": add --embed " + device_arch_ +
                           " or a PTX target");
      }
      auto made = std::make_shared<LoadedCode>();
      made->target = image->target;
      // cuModuleLoadData reads PTX as a NUL-terminated string.
      std::string bytes = image->image;
      if (image->kind == "ptx") bytes.push_back('\0');
      cuda::check(cuda::Module::load(bytes, &made->module),
                  ("cuModuleLoadData (" + file.path() + ", " + image->target + ")").c_str());
      const std::vector<std::string> entries = launch_entries(image->entry, launches);
      for (size_t l = 0; l < launches.size(); ++l) {
        const std::string& name = entries[l];
        CUfunction function = nullptr;
        cuda::check(made->module.function(name, &function),
                    ("cuModuleGetFunction '" + name + "'").c_str());
        made->functions.push_back(function);
      }
      slot = made;
    }
    return static_cast<void*>(slot->functions.at(index));
  });
}

void Selection::launch(void** arguments, void* stream, size_t index) const {
  auto* function = static_cast<CUfunction>(load(index));
  const LaunchGeometry& g = launches[index];
  guarded([&] {
    if (g.dynamic_shared_bytes > 48 * 1024) {
      cuda::check(
          cuda::set_function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       static_cast<int>(g.dynamic_shared_bytes)),
          "cuFuncSetAttribute (dynamic shared bytes)");
    }
    // A block-merged kernel's extra parameters follow the application's.
    std::vector<uint32_t> trailing = g.trailing_arguments;
    std::vector<void*> all;
    if (!trailing.empty()) {
      all.assign(arguments, arguments + g.argument_count);
      for (uint32_t& value : trailing) all.push_back(&value);
      arguments = all.data();
    }
    cuda::check(cuda::api().cuLaunchKernel(function, g.grid[0], g.grid[1], g.grid[2], g.block[0],
                                           g.block[1], g.block[2], g.dynamic_shared_bytes,
                                           static_cast<CUstream>(stream), arguments, nullptr),
                ("cuLaunchKernel '" + g.kernel + "'").c_str());
    return 0;
  });
}

DeviceBuffer::DeviceBuffer(size_t bytes, int ordinal) : bytes_(bytes) {
  guarded([&] {
    make_current(ordinal);
    CUdeviceptr pointer = 0;
    cuda::check(cuda::api().cuMemAlloc(&pointer, bytes == 0 ? 1 : bytes), "cuMemAlloc");
    address_ = pointer;
    return 0;
  });
}

DeviceBuffer::~DeviceBuffer() {
  if (address_ != 0) {
    if (const cuda::Api* api = cuda::try_api()) api->cuMemFree(address_);
  }
}

void DeviceBuffer::upload(const void* host) {
  guarded([&] {
    cuda::check(cuda::api().cuMemcpyHtoD(address_, host, bytes_), "cuMemcpyHtoD");
    return 0;
  });
}

void DeviceBuffer::download(void* host) const {
  guarded([&] {
    cuda::check(cuda::api().cuMemcpyDtoH(host, address_, bytes_), "cuMemcpyDtoH");
    return 0;
  });
}

void synchronize() {
  guarded([&] {
    cuda::check(cuda::api().cuCtxSynchronize(), "cuCtxSynchronize (an earlier launch failed)");
    return 0;
  });
}

}  // namespace gputune::runtime
