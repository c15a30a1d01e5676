#include "core/config_codec.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

namespace gputune {
namespace {

std::optional<nlohmann::ordered_json> parse_object(const std::string& text) {
  auto json = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!json.is_object()) return std::nullopt;
  return json;
}

Value value_of(const nlohmann::ordered_json& json) {
  if (json.is_number_unsigned()) {
    const uint64_t v = json.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return static_cast<double>(v);
    }
    return static_cast<int64_t>(v);
  }
  if (json.is_number_integer()) return json.get<int64_t>();
  if (json.is_number_float()) return json.get<double>();
  if (json.is_string()) return json.get<std::string>();
  return json.dump();
}

bool is_integral(double v) {
  return std::isfinite(v) && std::abs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::abs(v));
}

}  // namespace

std::string config_to_json(const Config& config) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : config) out[name] = value;
  return out.dump();
}

std::optional<Config> config_from_json(const std::string& text) {
  auto json = parse_object(text);
  if (!json) return std::nullopt;
  Config config;
  for (auto it = json->begin(); it != json->end(); ++it) {
    config.emplace_back(it.key(), value_of(it.value()));
  }
  return config;
}

std::string problem_to_json(const ProblemValues& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, value] : values) {
    if (is_integral(value) && std::abs(value) < 9.0e15) {
      out[name] = std::llround(value);
    } else {
      out[name] = value;
    }
  }
  return out.dump();
}

std::optional<ProblemValues> problem_from_json(const std::string& text) {
  auto json = parse_object(text);
  if (!json) return std::nullopt;
  ProblemValues values;
  for (auto it = json->begin(); it != json->end(); ++it) {
    if (it->is_number()) values.emplace_back(it.key(), it->get<double>());
  }
  return values;
}

const Value* find_value(const Config& config, const std::string& name) {
  for (const auto& [key, value] : config) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string symbol_text(const Value& value) {
  return value.is_number() ? value.json() : value.as_symbol();
}

}  // namespace gputune
