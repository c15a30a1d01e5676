#include "space/search_space.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <mutex>

#include "core/config_codec.h"
#include "core/text.h"
#include "gputune/error.h"

namespace gputune {

struct SearchSpace::Impl {
  Scope scope;
  std::vector<double*> slots;  // per dimension; null for symbol-valued ones, which stay unseen
  std::vector<Expression> constraints;
  std::mutex mutex;  // the scope and muparser's evaluation stack are shared state

  int failed(const std::vector<Dimension>& dimensions, const std::vector<SpaceLimit>& limits,
             const std::vector<size_t>& digits) {
    for (size_t d = 0; d < dimensions.size(); ++d) {
      if (slots[d]) *slots[d] = dimensions[d].values[digits[d]].as_number();
    }
    for (size_t c = 0; c < constraints.size(); ++c) {
      if (constraints[c].evaluate() == 0) return static_cast<int>(c);
    }
    for (size_t l = 0; l < limits.size(); ++l) {
      if (!limits[l].holds(digits)) return static_cast<int>(constraints.size() + l);
    }
    return -1;
  }

  // Calls `visit(failed)` for every config of the product, in index order.
  template <typename Visit>
  void walk(const std::vector<Dimension>& dimensions, const std::vector<SpaceLimit>& limits,
            uint64_t size, Visit visit) {
    std::vector<size_t> digits(dimensions.size(), 0);
    for (uint64_t index = 0; index < size; ++index) {
      visit(failed(dimensions, limits, digits));
      for (size_t d = digits.size(); d-- > 0;) {  // odometer step, last dimension fastest
        if (++digits[d] < dimensions[d].values.size()) break;
        digits[d] = 0;
      }
    }
  }
};

SearchSpace::SearchSpace(std::vector<Dimension> dimensions,
                         const std::vector<std::string>& constraints, const Scope& problem)
    : dimensions_(std::move(dimensions)), impl_(std::make_shared<Impl>()) {
  for (const auto& name : problem.names()) impl_->scope.set(name, problem.get(name));
  strides_.assign(dimensions_.size(), 1);
  for (size_t d = dimensions_.size(); d-- > 0;) {
    const Dimension& dimension = dimensions_[d];
    if (dimension.values.empty()) {
      throw Error(ErrorCode::kUsage, "dimension '" + dimension.name + "' has no values");
    }
    strides_[d] = size_;
    if (size_ > std::numeric_limits<uint64_t>::max() / dimension.values.size()) {
      throw Error(ErrorCode::kSpec, "the search space has more than 2^64 configs");
    }
    size_ *= dimension.values.size();
  }
  for (const auto& dimension : dimensions_) {
    bool numeric = is_identifier(dimension.name);  // constraints cannot read "unroll(k_loop)"
    for (const auto& value : dimension.values) numeric = numeric && value.is_number();
    impl_->slots.push_back(numeric ? impl_->scope.slot(dimension.name) : nullptr);
  }
  for (size_t c = 0; c < constraints.size(); ++c) {
    try {
      impl_->constraints.emplace_back(constraints[c], impl_->scope);
    } catch (const ExpressionError& e) {
      ConstraintError error;
      error.message = e.message;
      error.offset = e.offset;
      error.constraint = c;
      throw error;
    }
  }
}

SearchSpace::~SearchSpace() = default;
SearchSpace::SearchSpace(SearchSpace&&) noexcept = default;

std::vector<size_t> SearchSpace::decode(uint64_t index) const {
  if (index >= size_) {
    throw Error(ErrorCode::kUsage, "config index " + std::to_string(index) +
                                       " is outside the space of " + std::to_string(size_));
  }
  std::vector<size_t> digits(dimensions_.size());
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    digits[d] = static_cast<size_t>(index / strides_[d]);
    index %= strides_[d];
  }
  return digits;
}

uint64_t SearchSpace::encode(const std::vector<size_t>& digits) const {
  if (digits.size() != dimensions_.size()) {
    throw Error(ErrorCode::kUsage, "a config needs " + std::to_string(dimensions_.size()) +
                                       " value indices, got " + std::to_string(digits.size()));
  }
  uint64_t index = 0;
  for (size_t d = 0; d < digits.size(); ++d) {
    if (digits[d] >= dimensions_[d].values.size()) {
      throw Error(ErrorCode::kUsage, "value index " + std::to_string(digits[d]) + " of '" +
                                         dimensions_[d].name + "' is out of range");
    }
    index += digits[d] * strides_[d];
  }
  return index;
}

std::vector<Value> SearchSpace::values(uint64_t index) const {
  const std::vector<size_t> digits = decode(index);
  std::vector<Value> out;
  out.reserve(digits.size());
  for (size_t d = 0; d < digits.size(); ++d) out.push_back(dimensions_[d].values[digits[d]]);
  return out;
}

void SearchSpace::add_limit(SpaceLimit limit) { limits_.push_back(std::move(limit)); }

SearchSpace SearchSpace::with_limit(SpaceLimit limit) const {
  SearchSpace narrowed(*this);
  narrowed.add_limit(std::move(limit));
  return narrowed;
}

size_t SearchSpace::constraint_count() const { return impl_->constraints.size(); }

bool SearchSpace::valid(uint64_t index) const { return failed_constraint(index) < 0; }

int SearchSpace::failed_constraint(uint64_t index) const {
  const std::vector<size_t> digits = decode(index);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->failed(dimensions_, limits_, digits);
}

uint64_t SearchSpace::count_valid() const {
  if (impl_->constraints.empty() && limits_.empty()) return size_;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  uint64_t count = 0;
  impl_->walk(dimensions_, limits_, size_, [&](int failed) { count += failed < 0; });
  return count;
}

std::vector<uint64_t> SearchSpace::count_pruned_by_limits() const {
  std::vector<uint64_t> pruned(limits_.size(), 0);
  if (limits_.empty()) return pruned;
  const int first_limit = static_cast<int>(impl_->constraints.size());
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->walk(dimensions_, limits_, size_, [&](int failed) {
    if (failed >= first_limit) ++pruned[static_cast<size_t>(failed - first_limit)];
  });
  return pruned;
}

namespace {

// `hits` of kCountSamples drawn configs, scaled to the product.
ConfigCount scaled(uint64_t hits, uint64_t size) {
  const double share = static_cast<double>(hits) / static_cast<double>(SearchSpace::kCountSamples);
  return {static_cast<uint64_t>(std::llround(share * static_cast<double>(size))), true};
}

}  // namespace

ConfigCount SearchSpace::count_valid_bounded() const {
  if (size_ <= kCountWalkLimit || (impl_->constraints.empty() && limits_.empty())) {
    return {count_valid(), false};
  }
  std::mt19937_64 random(size_);
  std::uniform_int_distribution<uint64_t> any(0, size_ - 1);
  uint64_t hits = 0;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (uint64_t i = 0; i < kCountSamples; ++i) {
    hits += impl_->failed(dimensions_, limits_, decode(any(random))) < 0;
  }
  ConfigCount out = scaled(hits, size_);
  out.configs = std::max<uint64_t>(out.configs, hits > 0 ? 1 : 0);
  return out;
}

std::vector<ConfigCount> SearchSpace::count_pruned_bounded() const {
  std::vector<ConfigCount> out;
  if (size_ <= kCountWalkLimit) {
    for (const uint64_t count : count_pruned_by_limits()) out.push_back({count, false});
    return out;
  }
  std::vector<uint64_t> hits(limits_.size(), 0);
  if (!limits_.empty()) {
    const int first_limit = static_cast<int>(impl_->constraints.size());
    std::mt19937_64 random(size_);
    std::uniform_int_distribution<uint64_t> any(0, size_ - 1);
    std::lock_guard<std::mutex> lock(impl_->mutex);
    for (uint64_t i = 0; i < kCountSamples; ++i) {
      const int failed = impl_->failed(dimensions_, limits_, decode(any(random)));
      if (failed >= first_limit) ++hits[static_cast<size_t>(failed - first_limit)];
    }
  }
  for (const uint64_t h : hits) out.push_back(scaled(h, size_));
  return out;
}

std::vector<uint64_t> SearchSpace::neighbours(uint64_t index) const {
  const std::vector<size_t> digits = decode(index);
  std::vector<uint64_t> out;
  for (size_t d = 0; d < digits.size(); ++d) {
    if (digits[d] > 0) {
      const uint64_t candidate = index - strides_[d];
      if (valid(candidate)) out.push_back(candidate);
    }
    if (digits[d] + 1 < dimensions_[d].values.size()) {
      const uint64_t candidate = index + strides_[d];
      if (valid(candidate)) out.push_back(candidate);
    }
  }
  return out;
}

uint64_t SearchSpace::nearest_valid(uint64_t index, uint64_t max_checks) const {
  if (valid(index)) return index;
  const std::vector<size_t> origin = decode(index);
  const size_t count = dimensions_.size();
  uint64_t checks = 0;
  uint64_t best = size_;
  uint64_t best_distance = 0;
  std::vector<size_t> digits = origin;
  // Every config that changes exactly the dimensions in `changed` (in increasing order, from
  // position `next`), kept when valid and nearer than the best so far.
  std::vector<size_t> changed;
  std::function<void(size_t, uint64_t)> vary = [&](size_t k, uint64_t distance) {
    if (checks >= max_checks) return;
    if (k == changed.size()) {
      ++checks;
      const uint64_t candidate = encode(digits);
      if ((best == size_ || distance < best_distance ||
           (distance == best_distance && candidate < best)) &&
          valid(candidate)) {
        best = candidate;
        best_distance = distance;
      }
      return;
    }
    const size_t d = changed[k];
    for (size_t v = 0; v < dimensions_[d].values.size(); ++v) {
      if (v == origin[d]) continue;
      const uint64_t step = v > origin[d] ? v - origin[d] : origin[d] - v;
      if (best != size_ && distance + step > best_distance) continue;
      digits[d] = v;
      vary(k + 1, distance + step);
    }
    digits[d] = origin[d];
  };
  std::function<void(size_t, size_t)> choose = [&](size_t next, size_t left) {
    if (left == 0) return vary(0, 0);
    for (size_t d = next; d + left <= count; ++d) {
      if (dimensions_[d].values.size() < 2) continue;
      changed.push_back(d);
      choose(d + 1, left - 1);
      changed.pop_back();
    }
  };
  for (size_t changes = 1; changes <= count && best == size_ && checks < max_checks; ++changes) {
    choose(0, changes);
  }
  return best;
}

std::string SearchSpace::describe(uint64_t index) const {
  const std::vector<Value> config = values(index);
  std::string out;
  for (size_t d = 0; d < config.size(); ++d) {
    if (d > 0) out += ' ';
    out += dimensions_[d].name + "=" + config[d].text();
  }
  return out;
}

std::string SearchSpace::json(uint64_t index) const {
  const std::vector<Value> values_of_index = values(index);
  Config config;
  config.reserve(values_of_index.size());
  for (size_t d = 0; d < values_of_index.size(); ++d) {
    config.emplace_back(dimensions_[d].name, values_of_index[d]);
  }
  return config_to_json(config);
}

int SearchSpace::dimension_index(const std::string& name) const {
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    if (dimensions_[d].name == name) return static_cast<int>(d);
  }
  return -1;
}

}  // namespace gputune
