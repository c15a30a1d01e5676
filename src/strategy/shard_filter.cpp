#include "strategy/shard_filter.h"

#include <utility>
#include <vector>

namespace gputune {
namespace {

class ShardFilter : public Strategy {
 public:
  ShardFilter(std::unique_ptr<Strategy> inner, Shard shard)
      : inner_(std::move(inner)), shard_(shard) {}

  void start(const StrategyContext& context) override { inner_->start(context); }

  std::vector<uint64_t> propose(size_t max_batch) override {
    std::vector<uint64_t> batch;
    while (batch.size() < max_batch) {
      const std::vector<uint64_t> proposed = inner_->propose(max_batch - batch.size());
      if (proposed.empty()) break;
      for (uint64_t index : proposed) {
        if (shard_.contains(index)) batch.push_back(index);
      }
    }
    return batch;
  }

  void observe(const std::vector<Measurement>& results) override { inner_->observe(results); }

 private:
  std::unique_ptr<Strategy> inner_;
  Shard shard_;
};

}  // namespace

std::unique_ptr<Strategy> restrict_to_shard(std::unique_ptr<Strategy> strategy, Shard shard) {
  if (shard.whole()) return strategy;
  return std::make_unique<ShardFilter>(std::move(strategy), shard);
}

}  // namespace gputune
