#include "features.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "gputune/error.h"

namespace gputune {
namespace {

bool is_power_of_two(double v) {
  if (!(v >= 1) || v != std::floor(v) || v > 9.0e15) return false;
  auto i = static_cast<uint64_t>(v);
  return (i & (i - 1)) == 0;
}

}  // namespace

double occupancy_estimate(const ResourceUsage& usage) {
  // Hopper (sm_90) per-SM limits; other GPUs differ a little, which a feature tolerates.
  constexpr int kRegisters = 65536, kThreads = 2048, kBlocks = 32;
  constexpr int kSharedBytes = 233472, kSharedPerBlockReserve = 1024;
  const int threads = usage.threads_per_block > 0 ? usage.threads_per_block : 256;
  const int warps = (threads + 31) / 32;
  const int registers_per_warp = ((std::max(usage.registers, 1) * 32 + 255) / 256) * 256;
  int blocks = std::min(kBlocks, kThreads / (warps * 32));
  blocks = std::min(blocks, kRegisters / (registers_per_warp * warps));
  if (usage.shared_bytes > 0) {
    blocks = std::min(blocks, kSharedBytes / (usage.shared_bytes + kSharedPerBlockReserve));
  }
  return std::max(blocks, 0) * warps * 32.0 / kThreads;
}

double problem_feature(double value) { return value > 0 ? std::log2(value) : value; }

FeatureMap::FeatureMap(const SearchSpace& space, std::vector<std::string> problem_names,
                       bool resources)
    : space_(&space), problem_names_(std::move(problem_names)), resources_(resources) {
  const auto& dimensions = space.dimensions();
  for (size_t d = 0; d < dimensions.size(); ++d) {
    first_column_.push_back(columns_.size());
    const auto& values = dimensions[d].values;
    bool numeric = std::all_of(values.begin(), values.end(),
                               [](const Value& v) { return v.is_number(); });
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
  nlohmann::json config = nlohmann::json::parse(config_json, nullptr, false);
  if (!config.is_object()) return std::nullopt;
  const auto& dimensions = space_->dimensions();
  std::vector<double> out;
  out.reserve(names_.size());
  for (size_t d = 0; d < dimensions.size(); ++d) {
    auto found = config.find(dimensions[d].name);
    if (found == config.end()) return std::nullopt;
    const size_t begin = first_column_[d];
    const size_t end = d + 1 < dimensions.size() ? first_column_[d + 1] : columns_.size();
    if (!columns_[begin].one_hot) {
      if (!found->is_number()) return std::nullopt;
      double v = found->get<double>();
      if (columns_[begin].log2 && !(v > 0)) return std::nullopt;
      out.push_back(columns_[begin].log2 ? std::log2(v) : v);
      continue;
    }
    std::string text = found->is_string() ? found->get<std::string>() : found->dump();
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
