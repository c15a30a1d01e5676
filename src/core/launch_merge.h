#pragma once
// The launch of a variant that the transformation engine merged (docs/engine.md): thread merge
// shrinks the block, block merge grows the block and shrinks the grid, and a block-merged
// kernel receives the original grid's extents as trailing `unsigned int` parameters. One rule,
// shared by the search (space/problem) and the run-time library (runtime/kernel_rules), so a
// shipped release launches an engine variant exactly as it was measured.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gputune {

// The knobs' names, as a spec writes them under `transforms:`.
inline constexpr const char* kThreadMergeX = "thread_merge_x";
inline constexpr const char* kThreadMergeY = "thread_merge_y";
inline constexpr const char* kBlockMergeX = "block_merge_x";
inline constexpr const char* kBlockMergeY = "block_merge_y";

// How many threads (blocks) one thread (block) of the variant does the work of, per dimension.
struct MergeFactors {
  uint32_t thread_x = 1, thread_y = 1, block_x = 1, block_y = 1;
  bool neutral() const { return thread_x == 1 && thread_y == 1 && block_x == 1 && block_y == 1; }
  // Sets the factor `knob` names; false when `knob` is none of the four. A value that is not a
  // whole number of at least 1 is kept as 0, which merge_launch() refuses.
  bool set(const std::string& knob, double value);
};

// The naive kernel's launch (as the spec writes it) and the merged variant's.
struct MergedLaunch {
  std::array<uint32_t, 3> block{1, 1, 1}, grid{1, 1, 1};
  // The original grid's x extent, then its y extent, for the dimensions block merge merged.
  std::vector<uint32_t> trailing_arguments;
};

// The merged launch of `block` and `grid`: block.x * block_x / thread_x threads along x (y
// likewise), ceil(grid.x / block_x) blocks along x. Returns "" and fills `out`, or why the
// factors do not fit this launch: a thread merge that does not divide the block's extent, a
// factor below 1.
std::string merge_launch(const MergeFactors& factors, const std::array<uint32_t, 3>& block,
                         const std::array<uint32_t, 3>& grid, MergedLaunch* out);

}  // namespace gputune
