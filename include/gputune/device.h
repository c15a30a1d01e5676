#pragma once
#include <cstdint>
#include <string>

namespace gputune {

// What one SM holds at once, as the driver reports it. 0 where unknown: a device read from the
// database or a recording has none of them (core/occupancy.h fills them in from its compute
// capability).
struct SmLimits {
  int registers = 0;
  int threads = 0;
  int blocks = 0;
  int shared_bytes = 0;
  int reserved_shared_bytes_per_block = 0;  // taken by the system from each block's share
  int register_granularity = 0;             // registers are allocated per warp in these units
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H200"
  std::string uuid;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  int driver_version = 0;  // 13000 for 13.0
  SmLimits sm_limits;      // reported by the driver; not part of key(): the capability says it
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  std::string key() const;  // name, capability, SMs and driver: what changes results
};

}  // namespace gputune
