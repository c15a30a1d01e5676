// The YAML spec as a whole (yaml_loader.h): keys and scalars, and the sections other than
// arguments, launches and check.
#include "spec/yaml_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/text.h"
#include "transforms/source_transforms.h"

namespace gputune {

namespace fs = std::filesystem;

const char* yaml_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "nothing";
  }
}

void YamlLoader::check_keys(const YAML::Node& map, const std::vector<std::string>& known,
                            const std::string& context) const {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar())
      fail(key, "a key in " + context + " must be a name, got " + yaml_kind(key));
    const std::string name = key.Scalar();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      fail(key, "unknown key '" + name + "' in " + context + suggestion(name, known) +
                    "; expected one of: " + join(known));
    }
    if (!seen.insert(name).second) {
      fail(key, "duplicate key '" + name + "' in " + context + "; expected each key once");
    }
  }
}

YAML::Node YamlLoader::key_node(const YAML::Node& map, const std::string& key) const {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  }
  return YAML::Node();
}

std::string YamlLoader::string_of(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) fail(node, what + " must be a string, got " + yaml_kind(node));
  return node.Scalar();
}

double YamlLoader::number_of(const YAML::Node& node, const std::string& what) const {
  double value = 0;
  if (!node.IsScalar() || node.Tag() == "!" || !YAML::convert<double>::decode(node, value) ||
      std::isnan(value)) {
    fail(node, what + " must be a number, got " +
                   (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(yaml_kind(node))));
  }
  return value;
}

int64_t YamlLoader::integer_of(const YAML::Node& node, const std::string& what) const {
  int64_t value = 0;
  if (!node.IsScalar() || node.Tag() == "!" || !YAML::convert<int64_t>::decode(node, value)) {
    fail(node, what + " must be an integer, got " +
                   (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(yaml_kind(node))));
  }
  return value;
}

bool YamlLoader::boolean_of(const YAML::Node& node, const std::string& what) const {
  bool value = false;
  if (node.IsScalar() && node.Tag() != "!" && YAML::convert<bool>::decode(node, value)) {
    return value;
  }
  int64_t number = 0;
  if (node.IsScalar() && YAML::convert<int64_t>::decode(node, number) &&
      (number == 0 || number == 1)) {
    return number == 1;
  }
  fail(node, what + " must be true or false, got " +
                 (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(yaml_kind(node))));
}

ExprText YamlLoader::expression_of(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar() || trim(node.Scalar()).empty()) {
    fail(node, what + " must be an expression (a number or a formula), got " + yaml_kind(node));
  }
  return {node.Scalar(), where(node)};
}

Value YamlLoader::value_of(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) {
    fail(node, what + " must be a number or a name, got " + std::string(yaml_kind(node)));
  }
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return Value(text);  // quoted: a symbol even if it looks like a number
  int64_t i = 0;
  if (YAML::convert<int64_t>::decode(node, i)) return Value(i);
  double d = 0;
  if (YAML::convert<double>::decode(node, d)) return Value(d);
  bool b = false;
  if (YAML::convert<bool>::decode(node, b)) return Value(int64_t{b ? 1 : 0});
  if (trim(text).empty()) fail(node, what + " is empty; expected a number or a name");
  return Value(text);
}

void YamlLoader::read_kernel(const YAML::Node& node, bool multi_launch, Spec* spec) {
  require_map(node, "kernel");
  check_keys(node, {"source", "name", "options", "macros", "defines"}, "kernel");
  const YAML::Node source = node["source"];
  if (!source) fail(node, "kernel has no 'source'; expected the path of a .cu file");
  const YAML::Node name = node["name"];
  if (!name && !multi_launch) {
    fail(node, "kernel has no 'name'; expected the kernel's function name");
  }

  spec->kernel_source = read_source_file(source, "kernel source", &spec->kernel_path);
  context_.kernel_source_as_written = source.Scalar();
  if (name) spec->kernel_name = {string_of(name, "kernel name"), where(name)};

  if (const YAML::Node options = node["options"]) {
    require_list(options, "kernel options");
    for (const auto& option : options) {
      spec->compile_options.push_back(string_of(option, "a kernel option"));
    }
  }
  if (const YAML::Node macros = node["macros"]) {
    spec->parameters_as_macros = boolean_of(macros, "kernel macros");
  }
  if (const YAML::Node defines = node["defines"]) {
    require_map(defines, "kernel defines");
    for (auto it = defines.begin(); it != defines.end(); ++it) {
      const std::string name = string_of(it->first, "a define's name");
      remember("defines/" + name, it->first);
      spec->defines.push_back({name, expression_of(it->second, "define '" + name + "'")});
    }
  }
}

std::string YamlLoader::read_source_file(const YAML::Node& node, const std::string& what,
                                         std::string* path) const {
  const std::string relative = string_of(node, what);
  fs::path resolved(relative);
  if (resolved.is_relative()) resolved = fs::path(path_).parent_path() / resolved;
  *path = resolved.lexically_normal().string();
  std::ifstream in(*path, std::ios::binary);
  if (!in) {
    fail(node, "cannot read " + what + " '" + relative + "' (looked for " + *path +
                   "); expected a path relative to the spec file");
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void YamlLoader::read_problem(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "problem");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = string_of(it->first, "a problem value name");
    remember("problem/" + name, it->first);
    spec->problem.push_back({name, expression_of(it->second, "problem value '" + name + "'")});
  }
}

void YamlLoader::apply_overrides(Spec* spec) {
  std::vector<std::string> names;
  for (const auto& entry : spec->problem) names.push_back(entry.first);
  for (const auto& [name, text] : overrides_) {
    auto it = std::find_if(spec->problem.begin(), spec->problem.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it == spec->problem.end()) {
      throw Error(ErrorCode::kUsage, path_ + ": --set " + name + "=" + text + ": '" + name +
                                         "' is not a problem value" + suggestion(name, names) +
                                         "; expected one of: " +
                                         (names.empty() ? "(the spec has none)" : join(names)));
    }
    if (trim(text).empty()) {
      throw Error(ErrorCode::kUsage, path_ + ": --set " + name +
                                         "= has no value; expected "
                                         "name=number or name=expression");
    }
    it->second.text = text;
    context_.overridden.insert(name);
  }
}

void YamlLoader::read_parameters(const YAML::Node& node, bool transforms, Spec* spec) {
  if (!node || node.IsNull()) return;
  const std::string section = transforms ? "transforms" : "parameters";
  require_map(node, section);
  if (transforms) {
    // The engine's knobs may name a target ("unroll(k_loop)"): no fixed list of keys.
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = string_of(it->first, "a transform name");
      if (const std::string why = reject_transform_name(name); !why.empty()) fail(it->first, why);
      if (!seen.insert(name).second) {
        fail(it->first, "duplicate key '" + name + "' in transforms; expected each key once");
      }
    }
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    ParameterSpec parameter;
    parameter.name = string_of(it->first, "a parameter name");
    parameter.where = where(it->first);
    parameter.is_transform = transforms;
    const std::string what = (transforms ? "transform '" : "parameter '") + parameter.name + "'";
    const YAML::Node values = it->second;
    if (!values.IsSequence()) {
      fail(values.IsNull() ? it->first : values,
           what + " must be a non-empty list of values, got " + yaml_kind(values) +
               "; expected e.g. [16, 32, 64]");
    }
    remember("values/" + parameter.name, values);
    for (size_t i = 0; i < values.size(); ++i) {
      remember("values/" + parameter.name + "/" + std::to_string(i), values[i]);
      parameter.values.push_back(value_of(values[i], "a value of " + what));
    }
    (transforms ? spec->transforms : spec->parameters).push_back(std::move(parameter));
  }
}

void YamlLoader::read_constraints(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_list(node, "constraints");
  for (size_t i = 0; i < node.size(); ++i) {
    spec->constraints.push_back(expression_of(node[i], "constraint " + std::to_string(i + 1)));
  }
}

void YamlLoader::read_baseline(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "baseline");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = "baseline/" + std::to_string(spec->baseline.size()) + "/";
    const std::string name = string_of(it->first, "a baseline name");
    remember(key + "name", it->first);
    remember(key + "value", it->second);
    spec->baseline.push_back({name, value_of(it->second, "baseline " + name)});
  }
}

void YamlLoader::read_metrics(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "metrics");
  check_keys(node, {"bytes", "flops"}, "metrics");
  if (const YAML::Node bytes = node["bytes"]) spec->bytes = expression_of(bytes, "metrics bytes");
  if (const YAML::Node flops = node["flops"]) spec->flops = expression_of(flops, "metrics flops");
}

void YamlLoader::read_search(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "search");
  check_keys(node, {"strategy", "budget", "seed"}, "search");
  if (const YAML::Node strategy = node["strategy"]) {
    spec->search.strategy = string_of(strategy, "search strategy");
    remember("search/strategy", strategy);
  }
  if (const YAML::Node budget = node["budget"]) {
    const std::string text = trim(string_of(budget, "search budget"));
    if (!parse_budget(text, &spec->search.budget_evaluations, &spec->search.budget_seconds)) {
      fail(budget, "search budget '" + text +
                       "' is neither a count nor a time; expected a positive integer "
                       "(evaluations) or a time such as 90s, 10m or 2h");
    }
  }
  if (const YAML::Node seed = node["seed"]) {
    const int64_t s = integer_of(seed, "search seed");
    if (s < 0) fail(seed, "search seed is negative; expected a non-negative integer");
    spec->search.seed = static_cast<uint64_t>(s);
  }
}

// remedies: {padding: [PAD], instruction_parallelism: [TM, TN]}; a single name may stand alone.
void YamlLoader::read_remedies(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "remedies");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string remedy = string_of(it->first, "a remedy name");
    std::vector<std::string> parameters;
    // A copy: `it->second` belongs to a temporary the range-for would outlive.
    const YAML::Node named = it->second;
    if (named.IsSequence()) {
      for (const auto& item : named) {
        parameters.push_back(string_of(item, "a parameter of remedy '" + remedy + "'"));
      }
    } else {
      parameters.push_back(string_of(named, "a parameter of remedy '" + remedy + "'"));
    }
    remember("remedies/" + remedy, it->first);
    spec->remedies.emplace_back(remedy, std::move(parameters));
  }
}

Spec YamlLoader::load() {
  Spec spec;
  spec.path = path_;
  spec.text = text_;
  YAML::Node loaded;
  try {
    loaded = YAML::Load(text_);
  } catch (const YAML::ParserException& e) {
    const SourceLocation at{path_, e.mark.is_null() ? 1 : e.mark.line + 1,
                            e.mark.is_null() ? 1 : e.mark.column + 1};
    fail(at, "invalid YAML (" + e.msg + "); expected a YAML map of spec keys");
  }
  const YAML::Node root = loaded;  // const: a lookup must never insert a key
  if (root.IsNull())
    fail(SourceLocation{path_, 1, 1},
         "the spec is empty; expected a map with "
         "kernel, arguments, launch and parameters");
  require_map(root, "the spec");
  const std::vector<std::string> keys = {
      "description", "kernel",      "problem",  "arguments", "launch",  "launches", "parameters",
      "transforms",  "constraints", "baseline", "check",     "metrics", "search",   "remedies"};
  check_keys(root, keys, "the spec");
  for (const char* required : {"kernel", "arguments"}) {
    if (!root[required]) {
      fail(root, std::string("the spec has no '") + required + "'; expected keys " +
                     "kernel, arguments and launch at least");
    }
  }
  const bool multi_launch = static_cast<bool>(root["launches"]);
  if (multi_launch == static_cast<bool>(root["launch"])) {
    fail(multi_launch ? key_node(root, "launches") : root,
         multi_launch ? "the spec has both 'launch' and 'launches'; expected launch (one "
                        "kernel launch) or launches (a sequence), not both"
                      : "the spec has no 'launch'; expected launch: {block, grid} or a list "
                        "under launches:");
  }
  if (const YAML::Node description = root["description"]) {
    if (!description.IsNull()) spec.description = string_of(description, "description");
  }
  read_kernel(root["kernel"], multi_launch, &spec);
  read_problem(root["problem"], &spec);
  apply_overrides(&spec);
  read_parameters(root["parameters"], false, &spec);
  read_parameters(root["transforms"], true, &spec);
  read_arguments(root["arguments"], &spec);
  spec.launches_where = where(key_node(root, multi_launch ? "launches" : "launch"));
  if (multi_launch) {
    read_launches(root["launches"], &spec);
  } else {
    read_launch(root["launch"], &spec);
  }
  spec.constraints_where = where(root["constraints"] ? key_node(root, "constraints") : root);
  read_constraints(root["constraints"], &spec);
  spec.baseline_where = root["baseline"] ? where(key_node(root, "baseline")) : SourceLocation{};
  read_baseline(root["baseline"], &spec);
  read_check(root["check"], &spec);
  read_metrics(root["metrics"], &spec);
  read_search(root["search"], &spec);
  if (root["remedies"]) spec.remedies_where = where(key_node(root, "remedies"));
  read_remedies(root["remedies"], &spec);
  check_spec(spec, context_);
  return spec;
}

}  // namespace gputune
