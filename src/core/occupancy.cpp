#include "core/occupancy.h"

#include <algorithm>
#include <iterator>

namespace gputune {
namespace {

struct DocumentedLimits {
  int cc_major, cc_minor;
  SmLimits limits;
};

constexpr int kKiB = 1024;

// registers, threads, blocks, shared bytes, reserved per block, register granularity (per warp)
const DocumentedLimits kDocumented[] = {
    {6, 0, {65536, 2048, 32, 64 * kKiB, 0, 256}},
    {6, 1, {65536, 2048, 32, 96 * kKiB, 0, 256}},
    {7, 0, {65536, 2048, 32, 96 * kKiB, 0, 256}},
    {7, 5, {65536, 1024, 16, 64 * kKiB, 0, 256}},
    {8, 0, {65536, 2048, 32, 164 * kKiB, kKiB, 256}},
    {8, 6, {65536, 1536, 16, 100 * kKiB, kKiB, 256}},
    {8, 7, {65536, 2048, 16, 164 * kKiB, kKiB, 256}},
    {8, 9, {65536, 1536, 24, 100 * kKiB, kKiB, 256}},
    {9, 0, {65536, 2048, 32, 228 * kKiB, kKiB, 256}},
    {10, 0, {65536, 2048, 32, 228 * kKiB, kKiB, 256}},
    {12, 0, {65536, 1536, 32, 100 * kKiB, kKiB, 256}},
};

int or_documented(int reported, int documented) { return reported > 0 ? reported : documented; }

}  // namespace

SmLimits documented_sm_limits(int cc_major, int cc_minor) {
  if (cc_major <= 0) return documented_sm_limits(9, 0);
  const int wanted = cc_major * 10 + cc_minor;
  const DocumentedLimits* closest = std::begin(kDocumented);  // older than any: the oldest
  for (const DocumentedLimits& entry : kDocumented) {
    if (entry.cc_major * 10 + entry.cc_minor <= wanted) closest = &entry;
  }
  return closest->limits;
}

SmLimits sm_limits(const DeviceInfo& device) {
  const SmLimits documented = documented_sm_limits(device.cc_major, device.cc_minor);
  const SmLimits& reported = device.sm_limits;
  SmLimits limits;
  limits.registers = or_documented(reported.registers, documented.registers);
  limits.threads = or_documented(reported.threads, documented.threads);
  limits.blocks = or_documented(reported.blocks, documented.blocks);
  limits.shared_bytes = or_documented(reported.shared_bytes, documented.shared_bytes);
  // 0 is a real value here (before sm_80), so only a device that reports nothing else lacks it.
  limits.reserved_shared_bytes_per_block = reported.shared_bytes > 0
                                               ? reported.reserved_shared_bytes_per_block
                                               : documented.reserved_shared_bytes_per_block;
  limits.register_granularity =
      or_documented(reported.register_granularity, documented.register_granularity);
  return limits;
}

BlockLimits block_limits(const BlockUsage& usage, const SmLimits& limits) {
  const int threads = usage.threads > 0 ? usage.threads : 256;
  const int warps = (threads + 31) / 32;
  BlockLimits out;
  out.blocks = limits.blocks;
  out.warps = limits.threads / (warps * 32);
  out.registers = limits.blocks;
  if (usage.registers > 0) {
    const int granularity = std::max(limits.register_granularity, 1);
    const int registers_per_warp =
        (usage.registers * 32 + granularity - 1) / granularity * granularity;
    out.registers = limits.registers / (registers_per_warp * warps);
  }
  out.shared_memory = limits.blocks;
  if (usage.shared_bytes > 0) {
    out.shared_memory =
        limits.shared_bytes / (usage.shared_bytes + limits.reserved_shared_bytes_per_block);
  }
  return out;
}

int resident_blocks(const BlockUsage& usage, const SmLimits& limits) {
  const BlockLimits by = block_limits(usage, limits);
  return std::max(std::min({by.blocks, by.warps, by.registers, by.shared_memory}), 0);
}

double warp_occupancy(const BlockUsage& usage, const SmLimits& limits) {
  const int threads = usage.threads > 0 ? usage.threads : 256;
  const int warps = (threads + 31) / 32;
  return resident_blocks(usage, limits) * warps * 32.0 / limits.threads;
}

}  // namespace gputune
