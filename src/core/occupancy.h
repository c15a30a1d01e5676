#pragma once
// The one occupancy formula: how many blocks of a kernel one SM holds at once.
#include "gputune/device.h"

namespace gputune {

struct BlockUsage {
  int threads = 0;       // per block; 0 or less: unknown, taken as 256
  int registers = 0;     // per thread; 0: unknown (not compiled yet), registers do not limit
  int shared_bytes = 0;  // static plus dynamic, per block
};

// The documented per-SM limits of a compute capability (CUDA C Programming Guide, "Technical
// Specifications per Compute Capability") of the newest listed capability at or below the one
// given. An unknown capability (0.0) gets sm_90's: the GPU the features were first fitted on.
SmLimits documented_sm_limits(int cc_major, int cc_minor);

// The device's reported limits, each one it lacks taken from documented_sm_limits().
SmLimits sm_limits(const DeviceInfo& device);

// Blocks one SM would hold by each of its limits alone (Nsight Compute's
// launch__occupancy_limit_*); a resource the block does not use allows `blocks`.
struct BlockLimits {
  int registers = 0, shared_memory = 0, warps = 0, blocks = 0;
};
BlockLimits block_limits(const BlockUsage& usage, const SmLimits& limits);

// Blocks resident on one SM, the least of block_limits(); 0 when one block does not fit (too many
// registers or too much shared memory).
int resident_blocks(const BlockUsage& usage, const SmLimits& limits);

// The fraction of the SM's thread slots those blocks fill, counted in whole warps.
double warp_occupancy(const BlockUsage& usage, const SmLimits& limits);

}  // namespace gputune
