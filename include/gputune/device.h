#pragma once
#include <cstdint>
#include <string>

namespace gputune {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H200"
  std::string uuid;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  int driver_version = 0;  // 13000 for 13.0
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  std::string key() const;  // name, capability, SMs and driver: what changes results
};

}  // namespace gputune
