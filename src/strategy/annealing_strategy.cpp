#include <algorithm>
#include <cmath>

#include <memory>
#include <random>

#include "strategy/registry.h"
#include "strategy/unproposed_pool.h"

namespace gputune {
namespace {

// In log time: a neighbour 10% slower is accepted at first with probability ~0.4.
constexpr double kStartTemperature = 0.1;
constexpr double kCooling = 0.93;  // per observed batch
constexpr double kMinTemperature = 0.002;
constexpr int kPatience = 40;  // evaluations without a new best before a restart

// Simulated annealing over SearchSpace::neighbours: a batch is a set of unvisited neighbours
// of the current config, the best of which is accepted by the Metropolis rule on log time;
// a search that stops improving restarts from random configs.
class AnnealingStrategy : public Strategy {
 public:
  explicit AnnealingStrategy(uint64_t seed) : seed_(seed) {}
  void start(const StrategyContext& context) override;
  std::vector<uint64_t> propose(size_t max_batch) override;
  void observe(const std::vector<Measurement>& results) override;

 private:
  uint64_t seed_;
  const SearchSpace* space_ = nullptr;
  UnproposedPool pool_;
  std::mt19937_64 rng_;
  bool has_current_ = false;
  uint64_t current_ = 0;
  double current_log_ = 0, best_log_ = 0;
  double temperature_ = 0;
  int since_improvement_ = 0;
};

void AnnealingStrategy::start(const StrategyContext& context) {
  space_ = &context.space;
  pool_.reset(context.space, seed_);
  rng_.seed(seed_);
  has_current_ = false;
  temperature_ = kStartTemperature;
  best_log_ = INFINITY;
  since_improvement_ = 0;
}

std::vector<uint64_t> AnnealingStrategy::propose(size_t max_batch) {
  std::vector<uint64_t> batch;
  if (has_current_) {
    std::vector<uint64_t> options;
    for (uint64_t n : space_->neighbours(current_)) {
      if (!pool_.proposed(n)) options.push_back(n);
    }
    std::shuffle(options.begin(), options.end(), rng_);
    for (size_t i = 0; i < options.size() && batch.size() < max_batch; ++i) {
      batch.push_back(options[i]);
    }
    if (batch.empty()) has_current_ = false;  // a dead end: restart somewhere new
  }
  if (!has_current_) {
    uint64_t index = 0;
    while (batch.size() < max_batch && pool_.next_random(&index)) batch.push_back(index);
  }
  for (uint64_t index : batch) pool_.mark(index);
  return batch;
}

void AnnealingStrategy::observe(const std::vector<Measurement>& results) {
  bool found = false;
  double batch_best = INFINITY;
  uint64_t batch_index = 0;
  for (const Measurement& m : results) {
    double median = m.median_ms();
    if (m.status != Status::kOk || !(median > 0)) continue;
    if (std::log(median) < batch_best) {
      batch_best = std::log(median);
      batch_index = m.config_index;
      found = true;
    }
  }
  since_improvement_ += static_cast<int>(results.size());
  if (found && batch_best < best_log_) {
    best_log_ = batch_best;
    since_improvement_ = 0;
  }
  if (found) {
    const double delta = batch_best - current_log_;
    std::uniform_real_distribution<double> uniform(0, 1);
    if (!has_current_ || delta < 0 || uniform(rng_) < std::exp(-delta / temperature_)) {
      has_current_ = true;
      current_ = batch_index;
      current_log_ = batch_best;
    }
  }
  temperature_ = std::max(kMinTemperature, temperature_ * kCooling);
  if (since_improvement_ >= kPatience) {
    has_current_ = false;
    temperature_ = kStartTemperature;
    since_improvement_ = 0;
  }
}

const StrategyRegistrar kRegistrar{
    {"annealing", 30, [](uint64_t seed) { return std::make_unique<AnnealingStrategy>(seed); }}};

}  // namespace
}  // namespace gputune
