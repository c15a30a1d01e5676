#include "core/launch_merge.h"

#include <cmath>

namespace gputune {

bool MergeFactors::set(const std::string& knob, double value) {
  uint32_t* factor = knob == kThreadMergeX   ? &thread_x
                     : knob == kThreadMergeY ? &thread_y
                     : knob == kBlockMergeX  ? &block_x
                     : knob == kBlockMergeY  ? &block_y
                                             : nullptr;
  if (factor == nullptr) return false;
  const bool whole =
      std::isfinite(value) && value >= 1 && value <= 4294967295.0 && std::floor(value) == value;
  *factor = whole ? static_cast<uint32_t>(value) : 0;
  return true;
}

std::string merge_launch(const MergeFactors& factors, const std::array<uint32_t, 3>& block,
                         const std::array<uint32_t, 3>& grid, MergedLaunch* out) {
  const struct {
    const char* axis;
    int index;
    uint32_t thread, block;
  } axes[] = {{"x", 0, factors.thread_x, factors.block_x},
              {"y", 1, factors.thread_y, factors.block_y}};
  MergedLaunch merged{block, grid, {}};
  for (const auto& axis : axes) {
    if (axis.thread < 1 || axis.block < 1) {
      return std::string("a merge factor along ") + axis.axis + " is not a whole number >= 1";
    }
    const uint32_t extent = block[axis.index];
    if (extent % axis.thread != 0) {
      return std::string("thread_merge_") + axis.axis + " = " + std::to_string(axis.thread) +
             " does not divide the block's " + axis.axis + " extent " + std::to_string(extent);
    }
    const uint64_t threads = static_cast<uint64_t>(extent / axis.thread) * axis.block;
    if (threads > 0xffffffffu) {
      return std::string("block_merge_") + axis.axis + " makes the block's " + axis.axis +
             " extent larger than 2^32";
    }
    merged.block[axis.index] = static_cast<uint32_t>(threads);
    merged.grid[axis.index] = static_cast<uint32_t>(
        (static_cast<uint64_t>(grid[axis.index]) + axis.block - 1) / axis.block);
  }
  if (factors.block_x > 1) merged.trailing_arguments.push_back(grid[0]);
  if (factors.block_y > 1) merged.trailing_arguments.push_back(grid[1]);
  *out = std::move(merged);
  return "";
}

}  // namespace gputune
