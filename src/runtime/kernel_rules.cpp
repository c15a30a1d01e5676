#include "runtime/kernel_rules.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/expression.h"
#include "core/launch_merge.h"

namespace gputune::runtime {
namespace {

// Ordered: a config lists its parameters as spec_json does.
using json = nlohmann::ordered_json;

constexpr double kMaxLaunchValue = 2147483647.0;

struct CompiledLaunch {
  std::string kernel;
  size_t argument_count = 0;  // the arguments an application passes (constants are not)
  std::vector<Expression> block, grid;
  std::optional<Expression> shared_bytes, when;
};

Parameter parameter_from_json(const std::string& name, const json& value) {
  Parameter p;
  p.name = name;
  if (value.is_number()) {
    p.is_number = true;
    p.number = value.get<double>();
    p.text = number_text(p.number);
  } else if (value.is_boolean()) {
    p.is_number = true;
    p.number = value.get<bool>() ? 1 : 0;
    p.text = number_text(p.number);
  } else if (value.is_string()) {
    p.text = value.get<std::string>();
  } else {
    throw RuntimeError("parameter '" + name + "' has value " + value.dump() +
                       "; expected a number or a string");
  }
  return p;
}

std::string expression_text(const json& value, const std::string& what) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  throw RuntimeError(what + " is " + value.dump() + "; expected an expression");
}

Expression compile(const std::string& text, Scope& scope, const std::string& what) {
  try {
    return Expression(text, scope);
  } catch (const ExpressionError& e) {
    throw RuntimeError(what + " '" + text + "': " + e.message);
  }
}

// "transpose<TILE, PAD>" at TILE=32, PAD=1 -> "transpose<32, 1>".
std::string substitute(const std::string& text, const Config& config) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t end = i;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
        ++end;
      }
      const std::string word = text.substr(i, end - i);
      std::string replaced = word;
      for (const Parameter& p : config) {
        if (p.name == word) replaced = p.text;
      }
      out += replaced;
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace

std::string number_text(double value) {
  if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < 9.0e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  // The shortest text that reads back the same.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof(shorter), "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return text;
}

Parameter parameter_from_text(const std::string& name, const std::string& text) {
  Parameter p;
  p.name = name;
  p.text = text;
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(number)) {
    p.is_number = true;
    p.number = number;
    p.text = number_text(number);
  }
  return p;
}

namespace {

bool is_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

struct KernelRules::Compiled {
  Scope scope;
  // Per parameter; null for symbol-valued ones and names no expression can read
  // ("unroll(k_loop)").
  std::vector<double*> parameter_slots;
  std::vector<size_t> merge_knobs;  // parameters that are the engine's merge transforms
  std::optional<size_t> fuse_knob;   // the engine's `fuse` transform, where the spec has it
  std::vector<double*> problem_slots;
  std::vector<std::pair<std::string, Expression>> constraints;
  std::vector<CompiledLaunch> launches;
};

KernelRules::KernelRules(const std::string& spec_json) : compiled_(std::make_unique<Compiled>()) {
  try {
    read(spec_json);
  } catch (const json::exception& e) {
    // A member of another type than the format says ("kernel": 7): the file's error.
    throw RuntimeError(std::string("spec_json: ") + e.what());
  }
}

void KernelRules::read(const std::string& spec_json) {
  const json spec = json::parse(spec_json, nullptr, false);
  if (!spec.is_object()) throw RuntimeError("spec_json is not a JSON object");
  const json problem = spec.value("problem", json::object());
  const json parameters = spec.value("parameters", json::object());
  if (!problem.is_object() || !parameters.is_object()) {
    throw RuntimeError("spec_json's problem and parameters are not objects");
  }
  Compiled& c = *compiled_;
  for (const auto& [name, value] : problem.items()) {
    if (!value.is_number()) throw RuntimeError("problem value '" + name + "' is not a number");
    problem_names_.push_back(name);
    default_problem_[name] = value.get<double>();
    c.problem_slots.push_back(c.scope.slot(name));
  }
  for (const auto& [name, values] : parameters.items()) {
    ParameterRule rule;
    rule.name = name;
    if (!values.is_array()) throw RuntimeError("parameter '" + name + "' has no value list");
    for (const json& v : values) {
      rule.values.push_back(parameter_from_json(name, v));
      rule.numeric = rule.numeric && rule.values.back().is_number;
    }
    c.parameter_slots.push_back(rule.numeric && is_identifier(name) ? c.scope.slot(name) : nullptr);
    parameters_.push_back(std::move(rule));
  }
  // The engine's merge knobs reshape every launch (core/launch_merge.h); a parameter of the
  // same name that is no transform is the user's own.
  for (const json& name : spec.value("transforms", json::array())) {
    if (!name.is_string()) continue;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      if (parameters_[i].name != name.get<std::string>()) continue;
      if (MergeFactors().set(parameters_[i].name, 1)) c.merge_knobs.push_back(i);
      if (parameters_[i].name == "fuse") c.fuse_knob = i;
    }
  }
  std::vector<std::string> constants;
  for (const json& argument : spec.value("arguments", json::array())) {
    if (argument.is_object() && argument.contains("constant")) {
      constants.push_back(argument.value("name", std::string()));
    }
  }
  for (const json& constraint : spec.value("constraints", json::array())) {
    const std::string text = expression_text(constraint, "a constraint");
    c.constraints.emplace_back(text, compile(text, c.scope, "constraint"));
  }
  for (const json& launch : spec.value("launch", json::array())) {
    CompiledLaunch out;
    out.kernel = launch.value("kernel", std::string());
    const json block = launch.value("block", json::array());
    const json grid = launch.value("grid", json::array());
    if (block.empty() || block.size() > 3 || grid.empty() || grid.size() > 3) {
      throw RuntimeError("a launch needs 1 to 3 block and grid dimensions");
    }
    for (const json& e : block) {
      out.block.push_back(compile(expression_text(e, "block"), c.scope, "block"));
    }
    for (const json& e : grid) {
      out.grid.push_back(compile(expression_text(e, "grid"), c.scope, "grid"));
    }
    if (launch.contains("shared_bytes") && !launch["shared_bytes"].is_null()) {
      out.shared_bytes =
          compile(expression_text(launch["shared_bytes"], "shared_bytes"), c.scope, "shared_bytes");
    }
    if (launch.contains("when") && !launch["when"].is_null()) {
      out.when = compile(expression_text(launch["when"], "when"), c.scope, "when");
    }
    for (const json& argument : launch.value("arguments", json::array())) {
      if (!argument.is_string()) continue;
      const std::string name = argument.get<std::string>();
      if (std::find(constants.begin(), constants.end(), name) == constants.end()) {
        ++out.argument_count;
      }
    }
    c.launches.push_back(std::move(out));
  }
  if (c.launches.empty()) throw RuntimeError("spec_json has no launch");
  const json baseline = spec.value("baseline", json::object());
  baseline_ = parse_config(baseline.dump());
}

KernelRules::~KernelRules() = default;

ProblemValues KernelRules::complete(const ProblemValues& given) const {
  ProblemValues out = default_problem_;
  for (const auto& [name, value] : given) {
    if (!out.count(name)) {
      std::string known;
      for (const std::string& n : problem_names_) known += (known.empty() ? "" : ", ") + n;
      throw RuntimeError("problem value '" + name + "' is not one of the kernel's (" + known + ")");
    }
    out[name] = value;
  }
  return out;
}

Config KernelRules::parse_config(const std::string& config_json, const Config* fill) const {
  try {
    return read_config(config_json, fill);
  } catch (const json::exception& e) {
    throw RuntimeError("config " + config_json + ": " + e.what());
  }
}

Config KernelRules::read_config(const std::string& config_json, const Config* fill) const {
  const json values = json::parse(config_json, nullptr, false);
  if (!values.is_object()) throw RuntimeError("config '" + config_json + "' is not an object");
  Config config;
  for (const ParameterRule& rule : parameters_) {
    if (values.contains(rule.name)) {
      config.push_back(parameter_from_json(rule.name, values[rule.name]));
    } else if (fill != nullptr) {
      for (const Parameter& p : *fill) {
        if (p.name == rule.name) config.push_back(p);
      }
    } else {
      throw RuntimeError("config " + config_json + " lacks parameter '" + rule.name + "'");
    }
  }
  for (const auto& [name, value] : values.items()) {
    bool known = false;
    for (const ParameterRule& rule : parameters_) known = known || rule.name == name;
    if (!known) {
      throw RuntimeError("config " + config_json + " names '" + name +
                         "', which is not a parameter of the kernel");
    }
  }
  return config;
}

bool KernelRules::check(const Config& config, const ProblemValues& problem,
                        const DeviceDescription& device, int registers, int static_shared_bytes,
                        std::string* why, std::vector<LaunchGeometry>* launches) const {
  auto fail = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (config.size() != parameters_.size()) return fail("the config lacks parameters");
  std::lock_guard<std::mutex> lock(mutex_);
  Compiled& c = *compiled_;
  for (size_t i = 0; i < problem_names_.size(); ++i) {
    const auto found = problem.find(problem_names_[i]);
    *c.problem_slots[i] =
        found != problem.end() ? found->second : default_problem_.at(problem_names_[i]);
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (c.parameter_slots[i] == nullptr) continue;
    if (!config[i].is_number) return fail(config[i].name + " is not a number");
    *c.parameter_slots[i] = config[i].number;
  }
  try {
    for (const auto& [text, expression] : c.constraints) {
      if (expression.evaluate() == 0) return fail("constraint '" + text + "' fails");
    }
    // A fused kernel takes the arguments of several launches; launch() passes one launch's.
    if (c.fuse_knob && config[*c.fuse_knob].is_number && config[*c.fuse_knob].number >= 2) {
      return fail("fuse = " + number_text(config[*c.fuse_knob].number) +
                  " makes one kernel of several launches, which the run time cannot launch: it "
                  "passes each launch its own arguments");
    }
    MergeFactors factors;
    for (size_t i : c.merge_knobs) {
      if (!config[i].is_number) return fail(config[i].name + " is not a number");
      factors.set(config[i].name, config[i].number);
    }
    std::vector<LaunchGeometry> out;
    for (const CompiledLaunch& launch : c.launches) {
      if (launch.when && launch.when->evaluate() == 0) continue;
      LaunchGeometry geometry;
      geometry.kernel = substitute(launch.kernel, config);
      auto whole = [&](const Expression& e, const char* what, bool zero_ok, uint32_t* into) {
        const double v = e.evaluate();
        if (!std::isfinite(v) || std::floor(v) != v || v < (zero_ok ? 0 : 1) ||
            v > kMaxLaunchValue) {
          if (why != nullptr) {
            *why = std::string(what) + " '" + e.text() + "' is " + number_text(v) +
                   "; expected a whole number of at least " + (zero_ok ? "0" : "1");
          }
          return false;
        }
        *into = static_cast<uint32_t>(v);
        return true;
      };
      for (size_t i = 0; i < launch.block.size(); ++i) {
        if (!whole(launch.block[i], "block", false, &geometry.block[i])) return false;
      }
      for (size_t i = 0; i < launch.grid.size(); ++i) {
        if (!whole(launch.grid[i], "grid", false, &geometry.grid[i])) return false;
      }
      if (launch.shared_bytes &&
          !whole(*launch.shared_bytes, "shared_bytes", true, &geometry.dynamic_shared_bytes)) {
        return false;
      }
      geometry.argument_count = launch.argument_count;
      if (!factors.neutral()) {
        MergedLaunch merged;
        const std::string not_merged =
            merge_launch(factors, geometry.block, geometry.grid, &merged);
        if (!not_merged.empty()) return fail(not_merged);
        geometry.block = merged.block;
        geometry.grid = merged.grid;
        geometry.trailing_arguments = std::move(merged.trailing_arguments);
      }
      const double threads = 1.0 * geometry.block[0] * geometry.block[1] * geometry.block[2];
      if (threads > device.max_threads_per_block) {
        return fail(number_text(threads) + " threads per block exceed the device's " +
                    std::to_string(device.max_threads_per_block));
      }
      if (registers > 0 && registers * threads > device.max_registers_per_block) {
        return fail(std::to_string(registers) + " registers x " + number_text(threads) +
                    " threads exceed the device's " +
                    std::to_string(device.max_registers_per_block) + " per block");
      }
      const double shared =
          static_cast<double>(static_shared_bytes) + geometry.dynamic_shared_bytes;
      if (device.max_shared_bytes_per_block > 0 && shared > device.max_shared_bytes_per_block) {
        return fail(number_text(shared) + " shared bytes per block exceed the device's " +
                    std::to_string(device.max_shared_bytes_per_block));
      }
      out.push_back(std::move(geometry));
    }
    if (out.empty()) return fail("no launch's condition (when) holds");
    if (launches != nullptr) *launches = std::move(out);
  } catch (const std::exception& e) {
    return fail(std::string("an expression fails: ") + e.what());
  } catch (...) {
    return fail("an expression fails");
  }
  return true;
}

}  // namespace gputune::runtime
