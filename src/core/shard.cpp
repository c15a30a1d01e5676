#include "core/shard.h"

#include <cstdlib>

#include "gputune/error.h"

namespace gputune {

std::string Shard::text() const { return std::to_string(index) + "/" + std::to_string(count); }

namespace {

bool parse_count(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  if (text.size() > 18) return false;
  *out = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& option) {
  const size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), &shard.index) ||
      !parse_count(text.substr(slash + 1), &shard.count) || shard.count == 0 ||
      shard.index >= shard.count) {
    throw Error(ErrorCode::kUsage, option + " " + text +
                                       ": expected K/N with 0 <= K < N, such as 0/8 for the "
                                       "first of eight shards (Slurm: --shard "
                                       "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
  }
  return shard;
}

}  // namespace gputune
