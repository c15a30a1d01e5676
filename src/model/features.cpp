#include "model/features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "core/config_codec.h"
#include "gputune/error.h"

namespace gputune {
namespace {

bool is_power_of_two(double v) {
  if (!(v >= 1) || v != std::floor(v) || v > 9.0e15) return false;
  auto i = static_cast<uint64_t>(v);
  return (i & (i - 1)) == 0;
}

}  // namespace

int resident_blocks(const ResourceUsage& usage, int dynamic_shared_bytes, const SmLimits& limits) {
  const BlockUsage block{usage.threads_per_block, usage.registers,
                         std::max(usage.shared_bytes, 0) + std::max(dynamic_shared_bytes, 0)};
  return std::max(resident_blocks(block, limits), 1);
}

// Several launches count as one: their blocks summed, the largest block and shared memory.
LaunchShape launch_shape(const Variant& variant) {
  LaunchShape shape;
  for (const Launch& launch : variant.launches) {
    shape.blocks += static_cast<double>(launch.grid[0]) * launch.grid[1] * launch.grid[2];
    shape.threads_per_block =
        std::max(shape.threads_per_block,
                 static_cast<double>(launch.block[0]) * launch.block[1] * launch.block[2]);
    shape.dynamic_shared_bytes =
        std::max(shape.dynamic_shared_bytes, static_cast<double>(launch.dynamic_shared_bytes));
  }
  return shape;
}

LaunchOf launch_of(const Spec& spec) {
  struct State {
    Spec spec;
    std::mutex mutex;
    std::map<std::vector<std::pair<std::string, double>>, std::unique_ptr<Problem>> problems;
  };
  auto state = std::make_shared<State>();
  state->spec = spec;
  return [state](uint64_t index, const std::vector<std::pair<std::string, double>>& values)
             -> std::optional<LaunchShape> {
    std::lock_guard<std::mutex> lock(state->mutex);
    auto found = state->problems.find(values);
    if (found == state->problems.end()) {
      std::unique_ptr<Problem> problem;
      try {
        problem = std::make_unique<Problem>(state->spec, values);
      } catch (const Error&) {
        // No valid space at these values: no geometry there.
      }
      found = state->problems.emplace(values, std::move(problem)).first;
    }
    if (!found->second || index >= found->second->space().size()) return std::nullopt;
    try {
      return launch_shape(found->second->geometry(index));
    } catch (const Error&) {
      return std::nullopt;  // a launch expression gives no valid launch for this config
    }
  };
}

const std::vector<std::string>& geometry_feature_names() {
  static const std::vector<std::string> names = {
      "log2(threads_per_block)", "log2(blocks)", "occupancy", "log2(waves)",
      "tail_wave_efficiency",    "sm_fill"};
  return names;
}

std::vector<double> geometry_features(const LaunchShape& shape, const ResourceUsage* resources,
                                      int sm_count, const SmLimits& limits) {
  ResourceUsage usage = resources ? *resources : ResourceUsage{};
  const double threads = std::max(shape.threads_per_block, 1.0);
  usage.threads_per_block = static_cast<int>(threads);
  const int resident = resident_blocks(usage, static_cast<int>(shape.dynamic_shared_bytes), limits);
  const double blocks = std::max(shape.blocks, 1.0);
  const double sms = std::max(sm_count, 1);
  const double waves = blocks / (sms * resident);
  return {std::log2(threads),
          std::log2(blocks),
          std::min(1.0, resident * threads / limits.threads),
          std::log2(waves),
          waves / std::ceil(waves),
          std::min(1.0, blocks / sms)};
}

std::optional<uint64_t> index_from_json(const SearchSpace& space, const std::string& config_json) {
  const std::optional<Config> config = config_from_json(config_json);
  if (!config) return std::nullopt;
  const auto& dimensions = space.dimensions();
  std::vector<size_t> digits(dimensions.size(), 0);
  for (size_t d = 0; d < dimensions.size(); ++d) {
    const Value* found = find_value(*config, dimensions[d].name);
    if (!found) return std::nullopt;
    const auto& values = dimensions[d].values;
    size_t k = 0;
    for (; k < values.size(); ++k) {
      const bool same = values[k].is_number()
                            ? found->is_number() && found->as_number() == values[k].as_number()
                            : symbol_text(*found) == values[k].text();
      if (same) break;
    }
    if (k == values.size()) return std::nullopt;
    digits[d] = k;
  }
  return space.encode(digits);
}

double occupancy_estimate(const ResourceUsage& usage, const SmLimits& limits) {
  return warp_occupancy({usage.threads_per_block, usage.registers, usage.shared_bytes}, limits);
}

double problem_feature(double value) { return value > 0 ? std::log2(value) : value; }

FeatureMap::FeatureMap(const SearchSpace& space, std::vector<std::string> problem_names,
                       bool resources)
    : space_(&space), problem_names_(std::move(problem_names)), resources_(resources) {
  const auto& dimensions = space.dimensions();
  for (size_t d = 0; d < dimensions.size(); ++d) {
    first_column_.push_back(columns_.size());
    const auto& values = dimensions[d].values;
    bool numeric =
        std::all_of(values.begin(), values.end(), [](const Value& v) { return v.is_number(); });
    if (numeric) {
      bool log2 = std::all_of(values.begin(), values.end(),
                              [](const Value& v) { return is_power_of_two(v.as_number()); });
      columns_.push_back({d, log2, false, ""});
      names_.push_back(log2 ? "log2(" + dimensions[d].name + ")" : dimensions[d].name);
    } else {
      for (const auto& v : values) {
        columns_.push_back({d, false, true, v.text()});
        names_.push_back(dimensions[d].name + "=" + v.text());
      }
    }
  }
  for (const auto& name : problem_names_) names_.push_back("log2(" + name + ")");
  if (resources_) {
    for (const char* name : {"registers", "shared_kib", "log2(1+spill_bytes)", "occupancy"}) {
      names_.push_back(name);
    }
  }
}

void FeatureMap::append_rest(const std::vector<double>& problem_values,
                             const ResourceUsage* resources, std::vector<double>* out) const {
  if (problem_values.size() != problem_names_.size()) {
    throw Error(ErrorCode::kUsage, "features need " + std::to_string(problem_names_.size()) +
                                       " problem values, got " +
                                       std::to_string(problem_values.size()));
  }
  for (double v : problem_values) out->push_back(problem_feature(v));
  if (!resources_) return;
  if (!resources) throw Error(ErrorCode::kUsage, "this feature map needs resource usage");
  out->push_back(resources->registers);
  out->push_back(resources->shared_bytes / 1024.0);
  out->push_back(std::log2(1.0 + std::max(resources->spill_bytes, 0)));
  out->push_back(occupancy_estimate(*resources));
}

std::vector<double> FeatureMap::row(uint64_t index, const std::vector<double>& problem_values,
                                    const ResourceUsage* resources) const {
  const std::vector<size_t> digits = space_->decode(index);
  const auto& dimensions = space_->dimensions();
  std::vector<double> out;
  out.reserve(names_.size());
  for (const Column& c : columns_) {
    const Value& v = dimensions[c.dimension].values[digits[c.dimension]];
    if (c.one_hot) {
      out.push_back(v.text() == c.symbol ? 1.0 : 0.0);
    } else {
      out.push_back(c.log2 ? std::log2(v.as_number()) : v.as_number());
    }
  }
  append_rest(problem_values, resources, &out);
  return out;
}

std::optional<std::vector<double>> FeatureMap::row_from_json(
    const std::string& config_json, const std::vector<double>& problem_values,
    const ResourceUsage* resources) const {
  const std::optional<Config> config = config_from_json(config_json);
  if (!config) return std::nullopt;
  const auto& dimensions = space_->dimensions();
  std::vector<double> out;
  out.reserve(names_.size());
  for (size_t d = 0; d < dimensions.size(); ++d) {
    const Value* found = find_value(*config, dimensions[d].name);
    if (!found) return std::nullopt;
    const size_t begin = first_column_[d];
    const size_t end = d + 1 < dimensions.size() ? first_column_[d + 1] : columns_.size();
    if (!columns_[begin].one_hot) {
      if (!found->is_number()) return std::nullopt;
      double v = found->as_number();
      if (columns_[begin].log2 && !(v > 0)) return std::nullopt;
      out.push_back(columns_[begin].log2 ? std::log2(v) : v);
      continue;
    }
    std::string text = symbol_text(*found);
    bool known = false;
    for (size_t c = begin; c < end; ++c) {
      known = known || columns_[c].symbol == text;
      out.push_back(columns_[c].symbol == text ? 1.0 : 0.0);
    }
    if (!known) return std::nullopt;
  }
  append_rest(problem_values, resources, &out);
  return out;
}

}  // namespace gputune
