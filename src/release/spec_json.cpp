#include "release/spec_json.h"

#include <nlohmann/json.hpp>

#include "space/problem.h"

namespace gputune {
namespace {

nlohmann::json texts(const std::vector<ExprText>& expressions) {
  nlohmann::json out = nlohmann::json::array();
  for (const ExprText& e : expressions) out.push_back(e.text);
  return out;
}

nlohmann::json argument_json(const ArgumentSpec& a) {
  nlohmann::json out = {{"name", a.name}, {"type", type_name(a.type)}};
  if (a.is_buffer) {
    out["count"] = a.count.text;
  } else {
    out["value"] = a.value.text;
  }
  if (a.output) out["output"] = true;
  if (a.scratch) out["scratch"] = true;
  if (a.constant) out["constant"] = a.constant_symbol();
  return out;
}

nlohmann::json launch_json(const Spec& spec, const LaunchSpec& launch) {
  nlohmann::json out = {{"kernel", launch.kernel_name.text},
                        {"grid", texts(launch.grid)},
                        {"block", texts(launch.block)}};
  if (launch.dynamic_shared_bytes) out["shared_bytes"] = launch.dynamic_shared_bytes->text;
  if (launch.when) out["when"] = launch.when->text;
  nlohmann::json arguments = nlohmann::json::array();
  for (size_t i : launch.arguments) arguments.push_back(spec.arguments.at(i).name);
  out["arguments"] = arguments;
  return out;
}

}  // namespace

std::string spec_json(const Spec& spec) {
  // nlohmann::json keeps object members sorted by key: the canonical form.
  nlohmann::json out;
  out["kernel"] = spec.kernel_name.text;
  nlohmann::json problem = nlohmann::json::object();
  const Problem at_default(spec);
  for (const auto& [name, value] : at_default.problem_values()) {
    problem[name] = nlohmann::json::parse(problem_to_json({{name, value}}))[name];
  }
  out["problem"] = problem;
  nlohmann::json parameters = nlohmann::json::object();
  for (const auto* list : {&spec.parameters, &spec.transforms}) {
    for (const ParameterSpec& p : *list) {
      nlohmann::json values = nlohmann::json::array();
      for (const Value& v : p.values) values.push_back(v);
      parameters[p.name] = values;
    }
  }
  out["parameters"] = parameters;
  out["transforms"] = nlohmann::json::array();
  for (const ParameterSpec& t : spec.transforms) out["transforms"].push_back(t.name);
  out["constraints"] = texts(spec.constraints);
  out["launch"] = nlohmann::json::array();
  for (const LaunchSpec& launch : spec.launches) out["launch"].push_back(launch_json(spec, launch));
  nlohmann::json baseline = nlohmann::json::object();
  for (const auto& [name, value] : spec.baseline) baseline[name] = value;
  out["baseline"] = baseline;
  out["arguments"] = nlohmann::json::array();
  for (const ArgumentSpec& a : spec.arguments) out["arguments"].push_back(argument_json(a));
  return out.dump();
}

}  // namespace gputune
