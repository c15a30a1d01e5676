#include "strategy/candidate_pool.h"

#include <algorithm>

#include "strategy/permutation.h"

namespace gputune {
namespace {
constexpr uint64_t kEnumerateLimit = 2'000'000;  // products walked whole to find valid configs
}  // namespace

std::vector<uint64_t> candidate_configs(const SearchSpace& space, size_t limit, uint64_t seed) {
  std::vector<uint64_t> candidates;
  if (space.size() <= kEnumerateLimit) {
    for (uint64_t i = 0; i < space.size(); ++i) {
      if (space.valid(i)) candidates.push_back(i);
    }
    if (candidates.size() > limit) {
      RandomPermutation pick(candidates.size(), seed);
      std::vector<uint64_t> sample;
      for (size_t i = 0; i < limit; ++i) sample.push_back(candidates[pick(i)]);
      std::sort(sample.begin(), sample.end());
      candidates = std::move(sample);
    }
  } else {
    RandomPermutation pick(space.size(), seed);
    const uint64_t tries = std::min<uint64_t>(space.size(), 50 * limit);
    for (uint64_t i = 0; i < tries && candidates.size() < limit; ++i) {
      uint64_t index = pick(i);
      if (space.valid(index)) candidates.push_back(index);
    }
    std::sort(candidates.begin(), candidates.end());
  }
  return candidates;
}

}  // namespace gputune
