#include <algorithm>
#include <cmath>

#include "strategy/local_strategies.h"

namespace gputune {
namespace {

// In log time: a neighbour 10% slower is accepted at first with probability ~0.4.
constexpr double kStartTemperature = 0.1;
constexpr double kCooling = 0.93;  // per observed batch
constexpr double kMinTemperature = 0.002;
constexpr int kPatience = 40;  // evaluations without a new best before a restart

}  // namespace

void UnproposedPool::reset(const SearchSpace& space, uint64_t seed) {
  space_ = &space;
  order_ = std::make_unique<RandomPermutation>(space.size(), seed);
  next_ = 0;
  proposed_.clear();
}

bool UnproposedPool::next_random(uint64_t* index) {
  while (next_ < space_->size()) {
    const uint64_t candidate = (*order_)(next_++);
    if (!proposed(candidate) && space_->valid(candidate)) {
      *index = candidate;
      return true;
    }
  }
  return false;
}

void AnnealingStrategy::start(const SearchSpace& space, const std::vector<Measurement>&) {
  space_ = &space;
  pool_.reset(space, seed_);
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

}  // namespace gputune
