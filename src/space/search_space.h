#pragma once
#include <cstdint>
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

struct Dimension {
  std::string name;
  std::vector<Value> values;
  bool is_transform = false;
};

// The product of the dimensions' values, filtered by constraints. A config is addressed by its
// index in the product (mixed radix, last dimension fastest); nothing is materialised.
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
  bool valid(uint64_t index) const;             // every constraint holds
  int failed_constraint(uint64_t index) const;  // -1 when valid
  uint64_t count_valid() const;                 // walks the product
  // Valid configs that differ from `index` in one dimension, by one step in value order.
  std::vector<uint64_t> neighbours(uint64_t index) const;
  std::string describe(uint64_t index) const;          // "TILE=32 PAD=1"
  std::string json(uint64_t index) const;              // {"TILE":32,"PAD":1}
  int dimension_index(const std::string& name) const;  // -1 when absent

 private:
  std::vector<Dimension> dimensions_;
  std::vector<uint64_t> strides_;
  uint64_t size_ = 1;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gputune
