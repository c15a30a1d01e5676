#pragma once
#include <optional>
#include <vector>

#include "gputune/device.h"

namespace gputune {

// Devices visible to the driver; empty without a driver or a GPU (never throws for that). Asked
// of a short-lived child process unless this process already loaded the driver: CUDA initialised
// here would not survive a later fork().
std::vector<DeviceInfo> list_gpus();
// The GPU of this ordinal among `gpus` (list_gpus() when not given), if any.
std::optional<DeviceInfo> listed_gpu(const std::vector<DeviceInfo>& gpus, int ordinal);
std::optional<DeviceInfo> listed_gpu(int ordinal);

}  // namespace gputune
