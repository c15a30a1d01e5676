#include <algorithm>
#include <cmath>
#include <unordered_set>

#include <deque>
#include <memory>
#include <random>
#include <utility>

#include "strategy/registry.h"
#include "strategy/unproposed_pool.h"

namespace gputune {
namespace {

constexpr size_t kRepairSearch = 64;      // configs looked at, nearest first, to repair a child
constexpr double kJumpProbability = 0.3;  // a mutation jumps to any value, else steps by one

// A genetic algorithm: the best configs found so far are the parents; children take each
// dimension from either parent, mutate by a step or a jump, and are repaired to the nearest
// valid config not proposed yet.
class GeneticStrategy : public Strategy {
 public:
  explicit GeneticStrategy(uint64_t seed) : seed_(seed) {}
  void start(const StrategyContext& context) override;
  std::vector<uint64_t> propose(size_t max_batch) override;
  void observe(const std::vector<Measurement>& results) override;

 private:
  void breed();
  bool repair(std::vector<size_t> digits, uint64_t* index);

  uint64_t seed_;
  const SearchSpace* space_ = nullptr;
  UnproposedPool pool_;
  std::mt19937_64 rng_;
  size_t population_ = 12;
  std::vector<std::pair<double, uint64_t>> ok_;  // log time, index
  std::deque<uint64_t> queue_;
};

void GeneticStrategy::start(const StrategyContext& context) {
  const SearchSpace& space = context.space;
  space_ = &space;
  pool_.reset(space, seed_);
  rng_.seed(seed_);
  population_ = std::clamp<size_t>(2 * space.dimensions().size() + 4, 8, 24);
  ok_.clear();
  queue_.clear();
}

std::vector<uint64_t> GeneticStrategy::propose(size_t max_batch) {
  std::vector<uint64_t> batch;
  while (batch.size() < max_batch) {
    if (queue_.empty()) breed();
    if (queue_.empty()) break;
    batch.push_back(queue_.front());
    queue_.pop_front();
  }
  return batch;
}

void GeneticStrategy::observe(const std::vector<Measurement>& results) {
  for (const Measurement& m : results) {
    double median = m.median_ms();
    if (m.status == Status::kOk && median > 0) ok_.push_back({std::log(median), m.config_index});
  }
  std::sort(ok_.begin(), ok_.end());
}

bool GeneticStrategy::repair(std::vector<size_t> digits, uint64_t* index) {
  const uint64_t child = space_->encode(digits);
  if (space_->valid(child) && !pool_.proposed(child)) {
    *index = child;
    return true;
  }
  // Breadth first over single steps, so the repaired child stays close to what was bred;
  // steps pass through invalid configs too, which neighbours() would not.
  std::vector<uint64_t> frontier = {child};
  std::unordered_set<uint64_t> seen = {child};
  const auto& dimensions = space_->dimensions();
  for (size_t head = 0; head < frontier.size() && seen.size() < kRepairSearch; ++head) {
    std::vector<size_t> at = space_->decode(frontier[head]);
    std::vector<uint64_t> next;
    for (size_t d = 0; d < at.size(); ++d) {
      for (int step : {-1, 1}) {
        if ((step < 0 && at[d] == 0) || (step > 0 && at[d] + 1 >= dimensions[d].values.size())) {
          continue;
        }
        std::vector<size_t> moved = at;
        moved[d] += step;
        next.push_back(space_->encode(moved));
      }
    }
    std::shuffle(next.begin(), next.end(), rng_);
    for (uint64_t n : next) {
      if (!seen.insert(n).second) continue;
      if (space_->valid(n) && !pool_.proposed(n)) {
        *index = n;
        return true;
      }
      frontier.push_back(n);
    }
  }
  return false;
}

void GeneticStrategy::breed() {
  std::vector<uint64_t> children;
  if (ok_.size() < 2) {
    uint64_t index = 0;
    while (children.size() < population_ && pool_.next_random(&index)) {
      pool_.mark(index);
      children.push_back(index);
    }
    queue_.insert(queue_.end(), children.begin(), children.end());
    return;
  }
  const size_t parents = std::min(population_, ok_.size());
  const size_t dims = space_->dimensions().size();
  std::uniform_int_distribution<size_t> pick(0, parents - 1);
  std::uniform_real_distribution<double> uniform(0, 1);
  auto tournament = [&] { return std::min(pick(rng_), pick(rng_)); };  // ok_ is sorted
  for (size_t c = 0; c < population_; ++c) {
    const std::vector<size_t> a = space_->decode(ok_[tournament()].second);
    const std::vector<size_t> b = space_->decode(ok_[tournament()].second);
    std::vector<size_t> child(dims);
    for (size_t d = 0; d < dims; ++d) child[d] = uniform(rng_) < 0.5 ? a[d] : b[d];
    for (size_t d = 0; d < dims; ++d) {
      const size_t count = space_->dimensions()[d].values.size();
      if (count < 2 || uniform(rng_) >= 1.0 / static_cast<double>(dims)) continue;
      if (uniform(rng_) < kJumpProbability) {
        child[d] = std::uniform_int_distribution<size_t>(0, count - 1)(rng_);
      } else if (child[d] == 0 || (child[d] + 1 < count && uniform(rng_) < 0.5)) {
        ++child[d];
      } else {
        --child[d];
      }
    }
    uint64_t index = 0;
    if (repair(child, &index) || pool_.next_random(&index)) {
      pool_.mark(index);
      children.push_back(index);
    }
  }
  queue_.insert(queue_.end(), children.begin(), children.end());
}

const StrategyRegistrar kRegistrar{
    {"genetic", 40, [](uint64_t seed) { return std::make_unique<GeneticStrategy>(seed); }}};

}  // namespace
}  // namespace gputune
