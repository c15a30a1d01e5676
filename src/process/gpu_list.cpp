#include <cstdint>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "process/gpu_list.h"
#include "process/ipc.h"
#include "run/cuda_driver.h"

namespace gputune {
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
    wire::Writer w;
    const std::vector<DeviceInfo> gpus = list_gpus_here();
    w.u64(gpus.size());
    for (const DeviceInfo& gpu : gpus) wire::put(w, gpu);
    ipc::write_frame(fd, 1, w.data());
    return 0;
  });
  std::vector<DeviceInfo> gpus;
  uint32_t type = 0;
  std::string payload;
  constexpr int kWaitMs = 60000;
  if (!ipc::readable({child.fd}, kWaitMs).empty() && ipc::read_frame(child.fd, &type, &payload)) {
    try {
      wire::Reader r(payload);
      for (uint64_t n = r.u64(); n > 0; --n) {
        gpus.emplace_back();
        wire::get(r, &gpus.back());
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
  if (cuda::loaded_in_process()) return list_gpus_here();
  return list_gpus_in_child();
}

std::optional<DeviceInfo> listed_gpu(const std::vector<DeviceInfo>& gpus, int ordinal) {
  for (const DeviceInfo& gpu : gpus) {
    if (gpu.ordinal == ordinal) return gpu;
  }
  return std::nullopt;
}

std::optional<DeviceInfo> listed_gpu(int ordinal) { return listed_gpu(list_gpus(), ordinal); }

}  // namespace gputune
