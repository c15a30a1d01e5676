// `--strategy rules`: the method's rules as a start, the search as the judge. The rules' pick
// (the context's first config, space/rule_pick.h) first; then, best first, the neighbours of
// the fastest config measured so far (one knob one step away in its value list), while they
// keep improving on it; then the model strategy on the rest, having learnt every result.
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>

#include "strategy/acquisition.h"
#include "strategy/model_strategy.h"
#include "strategy/registry.h"

namespace gputune {
namespace {

class RulesStrategy : public Strategy {
 public:
  explicit RulesStrategy(uint64_t seed) : model_(seed) {}

  void start(const StrategyContext& context) override {
    space_ = &context.space;
    proposed_.clear();
    best_.reset();
    best_ms_ = std::numeric_limits<double>::infinity();
    climbing_ = false;
    for (uint64_t index : context.first_configs) {
      if (space_->valid(index)) {
        best_ = index;  // the centre of the first neighbourhood, before it is measured
        climbing_ = true;
        break;
      }
    }
    model_.start(context);
  }

  std::vector<uint64_t> propose(size_t max_batch) override {
    std::vector<uint64_t> batch;
    if (climbing_) {
      if (!proposed_.count(*best_)) {
        proposed_.insert(*best_);
        batch.push_back(*best_);
      }
      for (uint64_t neighbour : space_->neighbours(*best_)) {
        if (batch.size() == max_batch) break;
        if (proposed_.insert(neighbour).second) batch.push_back(neighbour);
      }
      // Every neighbour of the best measured and none better: the climb has its local best.
      if (batch.empty() && waiting_ == 0) climbing_ = false;
    }
    // The model proposes once the climb ends, and meanwhile while the climb waits on results
    // (an empty proposal would end the search).
    while (batch.empty()) {
      const std::vector<uint64_t> proposed = model_.propose(max_batch);
      if (proposed.empty()) break;
      for (uint64_t index : proposed) {
        if (proposed_.insert(index).second) batch.push_back(index);
      }
    }
    waiting_ += batch.size();
    return batch;
  }

  void observe(const std::vector<Measurement>& results) override {
    for (const Measurement& m : results) {
      if (waiting_ > 0) --waiting_;
      proposed_.insert(m.config_index);
      double log_ms = 0;
      if (ok_log_time(m, &log_ms) && log_ms < best_ms_) {
        best_ms_ = log_ms;
        best_ = m.config_index;
      }
    }
    model_.observe(results);
  }

 private:
  ModelStrategy model_;
  const SearchSpace* space_ = nullptr;
  std::unordered_set<uint64_t> proposed_;
  std::optional<uint64_t> best_;
  double best_ms_ = std::numeric_limits<double>::infinity();
  size_t waiting_ = 0;  // proposed, not yet observed
  bool climbing_ = false;
};

const StrategyRegistrar kRegistrar{
    {"rules", 60, [](uint64_t seed) { return std::make_unique<RulesStrategy>(seed); }}};

}  // namespace
}  // namespace gputune
