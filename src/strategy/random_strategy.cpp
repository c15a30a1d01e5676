#include <memory>

#include "strategy/permutation.h"
#include "strategy/registry.h"

namespace gputune {
namespace {

// Every valid config once, in a seeded random order.
class RandomStrategy : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed) : seed_(seed) {}

  void start(const StrategyContext& context) override {
    space_ = &context.space;
    order_ = std::make_unique<RandomPermutation>(space_->size(), seed_);
    next_ = 0;
  }

  std::vector<uint64_t> propose(size_t max_batch) override {
    std::vector<uint64_t> batch;
    while (batch.size() < max_batch && next_ < space_->size()) {
      uint64_t index = (*order_)(next_++);
      if (space_->valid(index)) batch.push_back(index);
    }
    return batch;
  }

  void observe(const std::vector<Measurement>&) override {}

 private:
  uint64_t seed_;
  const SearchSpace* space_ = nullptr;
  std::unique_ptr<RandomPermutation> order_;
  uint64_t next_ = 0;
};

const StrategyRegistrar kRegistrar{
    {"random", 20, [](uint64_t seed) { return std::make_unique<RandomStrategy>(seed); }}};

}  // namespace
}  // namespace gputune
