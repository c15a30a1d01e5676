#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/expression.h"
#include "gputune/value.h"

namespace gputune {

// A constraint that does not compile: which one, and why.
struct ConstraintError : ExpressionError {
  size_t constraint = 0;  // index into the constraints given
};

// A count of configs: exact, or estimated where the product is too large to walk.
struct ConfigCount {
  uint64_t configs = 0;
  bool estimated = false;
};

struct Dimension {
  std::string name;
  std::vector<Value> values;
  bool is_transform = false;
};

// A rule every config must keep besides the spec's constraints, such as the device's threads
// per block: configs that break it are pruned like those a constraint rejects.
struct SpaceLimit {
  std::string violation;  // what a pruned config does: "exceed 1024 threads per block"
  // Whether the config (each dimension's value index) keeps the limit.
  std::function<bool(const std::vector<size_t>& digits)> holds;
};

// The product of the dimensions' values, filtered by constraints and limits. A config is addressed
// by its index in the product (mixed radix, last dimension fastest); nothing is materialised.
class SearchSpace {
 public:
  // `scope` holds the problem values; constraints may read them and every numeric dimension.
  // Throws ConstraintError (an ExpressionError) for a constraint that does not compile.
  SearchSpace(std::vector<Dimension> dimensions, const std::vector<std::string>& constraints,
              const Scope& problem);
  ~SearchSpace();
  SearchSpace(SearchSpace&&) noexcept;

  const std::vector<Dimension>& dimensions() const { return dimensions_; }
  uint64_t size() const { return size_; }            // the whole product
  std::vector<size_t> decode(uint64_t index) const;  // value index per dimension
  uint64_t encode(const std::vector<size_t>& digits) const;
  std::vector<Value> values(uint64_t index) const;
  // Checked after the constraints, in the order added. Add limits before the space is used.
  void add_limit(SpaceLimit limit);
  // This space with one more limit (a search's own pruning), sharing its compiled constraints;
  // this space is left as it is.
  SearchSpace with_limit(SpaceLimit limit) const;
  const std::vector<SpaceLimit>& limits() const { return limits_; }
  size_t constraint_count() const;

  bool valid(uint64_t index) const;  // every constraint and limit holds
  // -1 when valid; else the first constraint that fails, or constraint_count() + k for limit k.
  int failed_constraint(uint64_t index) const;
  uint64_t count_valid() const;  // walks the product
  // Per limit, the configs that keep every constraint but break that limit (the first broken);
  // walks the product.
  std::vector<uint64_t> count_pruned_by_limits() const;
  // The same counts without walking a product of more than kCountWalkLimit configs: above it,
  // estimated from kCountSamples configs drawn at random (the same draw for the same space).
  // For everything that only shows a count (list, select, plan, a search's report).
  static constexpr uint64_t kCountWalkLimit = uint64_t{1} << 20;
  static constexpr uint64_t kCountSamples = uint64_t{1} << 16;
  ConfigCount count_valid_bounded() const;
  std::vector<ConfigCount> count_pruned_bounded() const;
  // Valid configs that differ from `index` in one dimension, by one step in value order.
  std::vector<uint64_t> neighbours(uint64_t index) const;
  // The valid config nearest to `index`: the fewest dimensions changed, then the least total
  // change of position in the value lists, then the lowest index. Looks at no more than
  // `max_checks` configs; size() when it finds none.
  uint64_t nearest_valid(uint64_t index, uint64_t max_checks = 1000000) const;
  std::string describe(uint64_t index) const;          // "TILE=32 PAD=1"
  std::string json(uint64_t index) const;              // {"TILE":32,"PAD":1}
  int dimension_index(const std::string& name) const;  // -1 when absent

 private:
  std::vector<Dimension> dimensions_;
  std::vector<SpaceLimit> limits_;
  std::vector<uint64_t> strides_;
  uint64_t size_ = 1;
  struct Impl;
  std::shared_ptr<Impl> impl_;  // shared with the spaces with_limit() makes

  SearchSpace(const SearchSpace&) = default;
};

}  // namespace gputune
