#include <memory>

#include "strategy/registry.h"

namespace gputune {
namespace {

// Every valid config in index order.
class BruteForceStrategy : public Strategy {
 public:
  void start(const StrategyContext& context) override {
    space_ = &context.space;
    next_ = 0;
  }

  std::vector<uint64_t> propose(size_t max_batch) override {
    std::vector<uint64_t> batch;
    while (batch.size() < max_batch && next_ < space_->size()) {
      uint64_t index = next_++;
      if (space_->valid(index)) batch.push_back(index);
    }
    return batch;
  }

  void observe(const std::vector<Measurement>&) override {}

 private:
  const SearchSpace* space_ = nullptr;
  uint64_t next_ = 0;
};

const StrategyRegistrar kRegistrar{
    {"brute_force", 10, [](uint64_t) { return std::make_unique<BruteForceStrategy>(); }}};

}  // namespace
}  // namespace gputune
