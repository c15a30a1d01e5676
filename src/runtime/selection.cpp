#include <cmath>
#include <nlohmann/json.hpp>

#include "gputune/runtime.h"

namespace gputune::runtime {
namespace {

const Parameter& find(const Config& config, const std::string& name) {
  for (const Parameter& p : config) {
    if (p.name == name) return p;
  }
  throw RuntimeError("the selected config has no parameter '" + name + "'");
}

nlohmann::ordered_json number_json(double value) {
  if (std::floor(value) == value && std::fabs(value) < 9.0e15) {
    return static_cast<int64_t>(value);
  }
  return value;
}

}  // namespace

double Selection::number(const std::string& parameter) const {
  const Parameter& p = find(config, parameter);
  if (!p.is_number)
    throw RuntimeError("parameter '" + parameter + "' is '" + p.text + "', not a number");
  return p.number;
}

std::string Selection::text(const std::string& parameter) const {
  return find(config, parameter).text;
}

std::string Selection::to_json() const {
  nlohmann::ordered_json out;
  nlohmann::ordered_json config_json = nlohmann::ordered_json::object();
  for (const Parameter& p : config) {
    if (p.is_number) {
      config_json[p.name] = number_json(p.number);
    } else {
      config_json[p.name] = p.text;
    }
  }
  out["config"] = config_json;
  out["tier"] = tier_name(tier);
  out["distance"] = distance;
  out["predicted_ms"] = predicted_ms >= 0 ? nlohmann::ordered_json(predicted_ms) : nullptr;
  out["layer"] = layer;
  out["has_code"] = has_code();
  nlohmann::ordered_json problem_json = nlohmann::ordered_json::object();
  for (const auto& [name, value] : problem) problem_json[name] = number_json(value);
  out["problem"] = problem_json;
  nlohmann::ordered_json launches_json = nlohmann::ordered_json::array();
  for (const LaunchGeometry& l : launches) {
    nlohmann::ordered_json launch = {{"kernel", l.kernel},
                                     {"grid", l.grid},
                                     {"block", l.block},
                                     {"shared_bytes", l.dynamic_shared_bytes}};
    if (!l.trailing_arguments.empty()) launch["trailing_arguments"] = l.trailing_arguments;
    launches_json.push_back(std::move(launch));
  }
  out["launches"] = launches_json;
  out["explanation"] = explanation;
  // Text from a file (a path, a symbol) need not be UTF-8: it is replaced, never a throw.
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace gputune::runtime
