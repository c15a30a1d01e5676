#include "strategy/first_configs.h"

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gputune {
namespace {

class FirstConfigs : public Strategy {
 public:
  explicit FirstConfigs(std::unique_ptr<Strategy> inner) : inner_(std::move(inner)) {}

  void start(const StrategyContext& context) override {
    first_.clear();
    for (uint64_t index : context.first_configs) {
      if (context.space.valid(index) && !proposed_.count(index)) {
        first_.push_back(index);
        proposed_.emplace(index, std::nullopt);
      }
    }
    next_ = 0;
    inner_->start(context);
  }

  std::vector<uint64_t> propose(size_t max_batch) override {
    std::vector<uint64_t> batch;
    while (batch.size() < max_batch && next_ < first_.size()) batch.push_back(first_[next_++]);
    while (batch.size() < max_batch) {
      const std::vector<uint64_t> proposed = inner_->propose(max_batch - batch.size());
      if (proposed.empty()) break;
      std::vector<Measurement> known;
      for (uint64_t index : proposed) {
        const auto found = proposed_.find(index);
        if (found == proposed_.end()) {
          batch.push_back(index);
        } else if (found->second) {
          // Measured already: the wrapped strategy learns it as if it had come back now.
          known.push_back(*found->second);
        }
      }
      if (!known.empty()) inner_->observe(known);
    }
    return batch;
  }

  void observe(const std::vector<Measurement>& results) override {
    for (const Measurement& m : results) {
      const auto found = proposed_.find(m.config_index);
      if (found != proposed_.end()) found->second = m;
    }
    inner_->observe(results);
  }

  bool wants_idle_gpu() const override { return inner_->wants_idle_gpu(); }
  void use_idle_gpu() override { inner_->use_idle_gpu(); }

 private:
  std::unique_ptr<Strategy> inner_;
  std::vector<uint64_t> first_;
  size_t next_ = 0;
  // The first configs, with their results once they come.
  std::unordered_map<uint64_t, std::optional<Measurement>> proposed_;
};

}  // namespace

std::unique_ptr<Strategy> proposing_first_configs(std::unique_ptr<Strategy> strategy) {
  return std::make_unique<FirstConfigs>(std::move(strategy));
}

}  // namespace gputune
