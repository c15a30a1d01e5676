#pragma once
#include <deque>
#include <memory>
#include <random>
#include <unordered_set>
#include <utility>
#include <vector>

#include "strategy/permutation.h"
#include "strategy/strategy.h"

namespace gputune {

// Valid configs not proposed yet, in a seeded random order; shared by the local searches.
class UnproposedPool {
 public:
  void reset(const SearchSpace& space, uint64_t seed);
  bool proposed(uint64_t index) const { return proposed_.count(index) > 0; }
  void mark(uint64_t index) { proposed_.insert(index); }
  // A random valid config not proposed yet; false when none is left.
  bool next_random(uint64_t* index);

 private:
  const SearchSpace* space_ = nullptr;
  std::unique_ptr<RandomPermutation> order_;
  uint64_t next_ = 0;
  std::unordered_set<uint64_t> proposed_;
};

// Simulated annealing over SearchSpace::neighbours: a batch is a set of unvisited neighbours
// of the current config, the best of which is accepted by the Metropolis rule on log time;
// a search that stops improving restarts from random configs.
class AnnealingStrategy : public Strategy {
 public:
  explicit AnnealingStrategy(uint64_t seed) : seed_(seed) {}
  void start(const SearchSpace& space, const std::vector<Measurement>& prior) override;
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

// A genetic algorithm: the best configs found so far are the parents; children take each
// dimension from either parent, mutate by a step or a jump, and are repaired to the nearest
// valid config not proposed yet.
class GeneticStrategy : public Strategy {
 public:
  explicit GeneticStrategy(uint64_t seed) : seed_(seed) {}
  void start(const SearchSpace& space, const std::vector<Measurement>& prior) override;
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

// A ModelStrategy with default options (model_strategy.cpp), declared here so that the
// registry does not include Eigen.
std::unique_ptr<Strategy> make_model_strategy(uint64_t seed);

}  // namespace gputune
