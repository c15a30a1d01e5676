#pragma once
#include <memory>

#include "strategy/permutation.h"
#include "strategy/strategy.h"

namespace gputune {

// Every valid config in index order.
class BruteForceStrategy : public Strategy {
 public:
  void start(const SearchSpace& space, const std::vector<Measurement>& prior) override;
  std::vector<uint64_t> propose(size_t max_batch) override;
  void observe(const std::vector<Measurement>&) override {}

 private:
  const SearchSpace* space_ = nullptr;
  uint64_t next_ = 0;
};

// Every valid config once, in a seeded random order.
class RandomStrategy : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed) : seed_(seed) {}
  void start(const SearchSpace& space, const std::vector<Measurement>& prior) override;
  std::vector<uint64_t> propose(size_t max_batch) override;
  void observe(const std::vector<Measurement>&) override {}

 private:
  uint64_t seed_;
  const SearchSpace* space_ = nullptr;
  std::unique_ptr<RandomPermutation> order_;
  uint64_t next_ = 0;
};

}  // namespace gputune
