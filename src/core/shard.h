#pragma once
#include <cstdint>
#include <string>

namespace gputune {

// One of `count` disjoint parts of a campaign (workloads) or of one space (config indices),
// numbered from 0 so that a Slurm array index (--array=0-7) names it directly. Item i belongs to
// shard i mod count: every item lands in exactly one shard, and shards stay balanced where a
// space's constraints prune whole index ranges.
struct Shard {
  uint64_t index = 0;
  uint64_t count = 1;

  bool contains(uint64_t item) const { return item % count == index; }
  bool whole() const { return count == 1; }
  std::string text() const;  // "3/8"
};

// "K/N" with 0 <= K < N. Throws Error(kUsage) naming `option` (such as "--shard") otherwise.
Shard parse_shard(const std::string& text, const std::string& option);

}  // namespace gputune
