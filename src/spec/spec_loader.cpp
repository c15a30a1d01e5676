#include "spec/spec_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "core/text.h"
#include "gputune/error.h"
#include "spec/reference_file.h"
#include "spec/spec_check.h"
#include "spec/t1_reader.h"
#include "transforms/source_transforms.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* kind_of(const YAML::Node& node) {
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

// YAML to Spec: the document's shape, keys, types and files. What the values mean is
// check_spec's, which gets the locations of the nodes it may point at.
class Loader {
 public:
  Loader(const std::string& text, const std::string& path, const Overrides& overrides)
      : path_(path), text_(text), overrides_(overrides) {}

  Spec load();

 private:
  SourceLocation where(const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return {path_, 1, 1};
    return {path_, mark.line + 1, mark.column + 1};
  }
  [[noreturn]] void fail(const SourceLocation& at, const std::string& what) const {
    throw Error(ErrorCode::kSpec, at.str() + ": " + what);
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    fail(where(node), what);
  }
  void remember(const std::string& key, const YAML::Node& node) {
    context_.where[key] = where(node);
  }

  // Map helpers: keys in file order, unknown and duplicate keys rejected.
  void check_keys(const YAML::Node& map, const std::vector<std::string>& known,
                  const std::string& context) const;
  YAML::Node key_node(const YAML::Node& map, const std::string& key) const;
  void require_map(const YAML::Node& node, const std::string& what) const {
    if (!node.IsMap())
      fail(node,
           what + " must be a map, got " + kind_of(node) + "; expected " + "key: value pairs");
  }
  void require_list(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence())
      fail(node,
           what + " must be a list, got " + kind_of(node) + "; expected [a, b, ...] or '- ' items");
  }
  std::string string_of(const YAML::Node& node, const std::string& what) const;
  double number_of(const YAML::Node& node, const std::string& what) const;
  int64_t integer_of(const YAML::Node& node, const std::string& what) const;
  bool boolean_of(const YAML::Node& node, const std::string& what) const;
  ExprText expression_of(const YAML::Node& node, const std::string& what) const;
  Value value_of(const YAML::Node& node, const std::string& what) const;

  void read_kernel(const YAML::Node& node, bool multi_launch, Spec* spec);
  void read_problem(const YAML::Node& node, Spec* spec);
  void apply_overrides(Spec* spec);
  void read_parameters(const YAML::Node& node, bool transforms, Spec* spec);
  void read_arguments(const YAML::Node& node, Spec* spec);
  void read_argument(const YAML::Node& item, size_t index, ArgumentSpec* arg);
  void read_launch(const YAML::Node& node, Spec* spec);
  void read_launches(const YAML::Node& node, Spec* spec);
  void read_launch_geometry(const YAML::Node& node, const std::string& context, LaunchSpec* launch);
  void read_constraints(const YAML::Node& node, Spec* spec);
  void read_baseline(const YAML::Node& node, Spec* spec);
  void read_check(const YAML::Node& node, Spec* spec);
  ArgumentSpec& output_named(const YAML::Node& key, const std::string& context, Spec* spec) const;
  std::vector<ExprText> dimensions_of(const YAML::Node& node, const std::string& what) const;
  void read_check_regions(const YAML::Node& node, Spec* spec);
  void read_references(const YAML::Node& node, Spec* spec);
  void read_reference_kernel(const YAML::Node& node, Spec* spec);
  std::string read_source_file(const YAML::Node& node, const std::string& what,
                               std::string* path) const;
  void read_metrics(const YAML::Node& node, Spec* spec);
  void read_search(const YAML::Node& node, Spec* spec);
  void read_remedies(const YAML::Node& node, Spec* spec);

  std::string path_;
  std::string text_;
  Overrides overrides_;
  SpecCheckContext context_;
};

void Loader::check_keys(const YAML::Node& map, const std::vector<std::string>& known,
                        const std::string& context) const {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) fail(key, "a key in " + context + " must be a name, got " + kind_of(key));
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

YAML::Node Loader::key_node(const YAML::Node& map, const std::string& key) const {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  }
  return YAML::Node();
}

std::string Loader::string_of(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) fail(node, what + " must be a string, got " + kind_of(node));
  return node.Scalar();
}

double Loader::number_of(const YAML::Node& node, const std::string& what) const {
  double value = 0;
  if (!node.IsScalar() || node.Tag() == "!" || !YAML::convert<double>::decode(node, value) ||
      std::isnan(value)) {
    fail(node, what + " must be a number, got " +
                   (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(kind_of(node))));
  }
  return value;
}

int64_t Loader::integer_of(const YAML::Node& node, const std::string& what) const {
  int64_t value = 0;
  if (!node.IsScalar() || node.Tag() == "!" || !YAML::convert<int64_t>::decode(node, value)) {
    fail(node, what + " must be an integer, got " +
                   (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(kind_of(node))));
  }
  return value;
}

bool Loader::boolean_of(const YAML::Node& node, const std::string& what) const {
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
                 (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(kind_of(node))));
}

ExprText Loader::expression_of(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar() || trim(node.Scalar()).empty()) {
    fail(node, what + " must be an expression (a number or a formula), got " + kind_of(node));
  }
  return {node.Scalar(), where(node)};
}

Value Loader::value_of(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) {
    fail(node, what + " must be a number or a name, got " + std::string(kind_of(node)));
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

void Loader::read_kernel(const YAML::Node& node, bool multi_launch, Spec* spec) {
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

std::string Loader::read_source_file(const YAML::Node& node, const std::string& what,
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

void Loader::read_problem(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "problem");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = string_of(it->first, "a problem value name");
    remember("problem/" + name, it->first);
    spec->problem.push_back({name, expression_of(it->second, "problem value '" + name + "'")});
  }
}

void Loader::apply_overrides(Spec* spec) {
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

void Loader::read_parameters(const YAML::Node& node, bool transforms, Spec* spec) {
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
           what + " must be a non-empty list of values, got " + kind_of(values) +
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

void Loader::read_arguments(const YAML::Node& node, Spec* spec) {
  require_list(node, "arguments");
  remember("arguments", node);
  for (size_t i = 0; i < node.size(); ++i) {
    ArgumentSpec arg;
    read_argument(node[i], i, &arg);
    spec->arguments.push_back(std::move(arg));
  }
}

void Loader::read_argument(const YAML::Node& item, size_t index, ArgumentSpec* arg) {
  require_map(item, "an argument");
  check_keys(item,
             {"name", "type", "count", "value", "output", "scratch", "constant", "symbol", "fill",
              "fill_value", "seed", "range"},
             "an argument");
  const std::string key = "arguments/" + std::to_string(index) + "/";
  arg->where = where(item);
  const YAML::Node name = item["name"];
  if (!name) fail(item, "an argument has no 'name'; expected name: <identifier>");
  arg->name = string_of(name, "an argument name");
  remember(key + "name", name);
  const std::string what = "argument '" + arg->name + "'";
  const YAML::Node type = item["type"];
  if (!type) fail(item, what + " has no 'type'; expected one of int8 .. uint64, float32, float64");
  const std::string type_text = string_of(type, what + " type");
  if (!parse_type(type_text, &arg->type)) {
    fail(type, "unknown type '" + type_text + "' for " + what +
                   suggestion(type_text, {"int8", "int16", "int32", "int64", "uint8", "uint16",
                                          "uint32", "uint64", "float32", "float64"}) +
                   "; expected one of: int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                   "float32, float64");
  }
  const YAML::Node count = item["count"], value = item["value"];
  if (static_cast<bool>(count) == static_cast<bool>(value)) {
    fail(item, what + (count ? " has both count and value" : " has neither count nor value") +
                   "; expected count (a buffer of that many elements) or value (a scalar)");
  }
  arg->is_buffer = static_cast<bool>(count);
  if (arg->is_buffer) {
    arg->count = expression_of(count, what + " count");
  } else {
    arg->value = expression_of(value, what + " value");
  }
  if (const YAML::Node output = item["output"]) {
    arg->output = boolean_of(output, what + " output");
    remember(key + "output", output);
  }
  if (const YAML::Node scratch = item["scratch"]) {
    arg->scratch = boolean_of(scratch, what + " scratch");
    remember(key + "scratch", scratch);
  }
  if (const YAML::Node constant = item["constant"]) {
    arg->constant = boolean_of(constant, what + " constant");
    remember(key + "constant", constant);
  }
  if (const YAML::Node symbol = item["symbol"]) {
    if (!arg->constant) {
      fail(key_node(item, "symbol"),
           what + " has a symbol but is not constant; expected symbol only with constant: true");
    }
    arg->symbol = string_of(symbol, what + " symbol");
    remember(key + "symbol", symbol);
  }

  const YAML::Node fill = item["fill"], fill_value = item["fill_value"], seed = item["seed"],
                   range = item["range"];
  for (const auto& [name_of_key, present] :
       std::initializer_list<std::pair<const char*, YAML::Node>>{
           {"fill", fill}, {"fill_value", fill_value}, {"seed", seed}, {"range", range}}) {
    if (!present) continue;
    if (!arg->is_buffer) {
      fail(key_node(item, name_of_key),
           what + " is a scalar; '" + name_of_key + "' applies to input buffers only");
    }
    if (arg->scratch) {
      fail(key_node(item, name_of_key), what + " is scratch, which gets no fill; '" + name_of_key +
                                            "' applies to inputs and outputs only");
    }
  }
  arg->initialised = arg->output && (fill || seed || range);
  if (fill) {
    const std::string fill_text = string_of(fill, what + " fill");
    if (fill_text == "random") {
      arg->fill = Fill::kRandom;
    } else if (fill_text == "constant") {
      arg->fill = Fill::kConstant;
    } else if (fill_text == "iota") {
      arg->fill = Fill::kIota;
    } else if (fill_text == "zeros") {
      arg->fill = Fill::kZeros;
    } else {
      fail(fill, "unknown fill '" + fill_text + "' for " + what +
                     suggestion(fill_text, {"random", "constant", "iota", "zeros"}) +
                     "; expected random, constant, iota or zeros");
    }
  }
  if (fill_value) {
    if (arg->fill != Fill::kConstant) {
      fail(key_node(item, "fill_value"),
           what + " has fill_value without fill: constant; expected fill: constant with it");
    }
    arg->fill_value = number_of(fill_value, what + " fill_value");
  } else if (arg->fill == Fill::kConstant) {
    fail(fill, what + " has fill: constant but no fill_value; expected fill_value: <number>");
  }
  if (seed) {
    if (arg->fill != Fill::kRandom) {
      fail(key_node(item, "seed"), what +
                                       " has a seed but its fill is not random; expected "
                                       "seed only with fill: random");
    }
    const int64_t s = integer_of(seed, what + " seed");
    if (s < 0) fail(seed, what + " seed is negative; expected a non-negative integer");
    arg->seed = static_cast<uint64_t>(s);
  }
  if (range) {
    if (arg->fill != Fill::kRandom) {
      fail(key_node(item, "range"), what +
                                        " has a range but its fill is not random; expected "
                                        "range only with fill: random");
    }
    if (!range.IsSequence() || range.size() != 2) {
      fail(range, what + " range must be a list of two numbers, got " +
                      (range.IsSequence() ? std::to_string(range.size()) + " items"
                                          : std::string(kind_of(range))) +
                      "; expected [low, high]");
    }
    arg->fill_low = number_of(range[0], what + " range low");
    arg->fill_high = number_of(range[1], what + " range high");
    remember(key + "range", range);
  }
}

void Loader::read_launch_geometry(const YAML::Node& node, const std::string& context,
                                  LaunchSpec* launch) {
  for (const char* key : {"block", "grid"}) {
    const YAML::Node dims = node[key];
    if (!dims)
      fail(node,
           context + " has no '" + key + "'; expected " + key + ": [x] or [x, y] or [x, y, z]");
    std::vector<ExprText>& out = std::string(key) == "block" ? launch->block : launch->grid;
    const std::string what = context + " " + key;
    if (dims.IsScalar()) {
      out.push_back(expression_of(dims, what));
    } else {
      if (!dims.IsSequence() || dims.size() < 1 || dims.size() > 3) {
        fail(dims, what + " must be a list of 1 to 3 expressions, got " +
                       (dims.IsSequence() ? std::to_string(dims.size()) + " items"
                                          : std::string(kind_of(dims))) +
                       "; expected [x], [x, y] or [x, y, z]");
      }
      for (size_t i = 0; i < dims.size(); ++i) {
        out.push_back(expression_of(dims[i], what + "[" + std::to_string(i) + "]"));
      }
    }
  }
  if (const YAML::Node shared = node["shared_bytes"]) {
    launch->dynamic_shared_bytes = expression_of(shared, context + " shared_bytes");
  }
}

void Loader::read_launch(const YAML::Node& node, Spec* spec) {
  require_map(node, "launch");
  check_keys(node, {"block", "grid", "shared_bytes"}, "launch");
  LaunchSpec launch;
  launch.kernel_name = spec->kernel_name;
  launch.where = where(node);
  for (size_t a = 0; a < spec->arguments.size(); ++a) launch.arguments.push_back(a);
  read_launch_geometry(node, "launch", &launch);
  spec->launches.push_back(std::move(launch));
}

void Loader::read_launches(const YAML::Node& node, Spec* spec) {
  require_list(node, "launches");
  if (node.size() == 0) {
    fail(node,
         "launches is empty; expected one or more launches, each with kernel, block "
         "and grid");
  }
  context_.numbered_launches = true;
  std::vector<std::string> argument_names;
  for (const ArgumentSpec& argument : spec->arguments) argument_names.push_back(argument.name);
  for (size_t l = 0; l < node.size(); ++l) {
    const YAML::Node item = node[l];
    const std::string context = "launch " + std::to_string(l + 1);
    require_map(item, context);
    check_keys(item, {"kernel", "arguments", "block", "grid", "shared_bytes", "when"}, context);
    LaunchSpec launch;
    launch.where = where(item);
    if (const YAML::Node kernel = item["kernel"]) {
      launch.kernel_name = {string_of(kernel, "kernel name"), where(kernel)};
    }
    if (const YAML::Node arguments = item["arguments"]) {
      require_list(arguments, context + " arguments");
      for (const auto& argument : arguments) {
        const std::string name = string_of(argument, "an argument of " + context);
        const auto it = std::find(argument_names.begin(), argument_names.end(), name);
        if (it == argument_names.end()) {
          fail(argument, context + " passes '" + name + "', which is not an argument" +
                             suggestion(name, argument_names) +
                             "; expected one of: " + join(argument_names));
        }
        launch.arguments.push_back(static_cast<size_t>(it - argument_names.begin()));
      }
    } else {
      for (size_t a = 0; a < spec->arguments.size(); ++a) launch.arguments.push_back(a);
    }
    if (const YAML::Node when = item["when"]) {
      launch.when = expression_of(when, context + " when");
    }
    read_launch_geometry(item, context, &launch);
    spec->launches.push_back(std::move(launch));
  }
}

void Loader::read_constraints(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_list(node, "constraints");
  for (size_t i = 0; i < node.size(); ++i) {
    spec->constraints.push_back(expression_of(node[i], "constraint " + std::to_string(i + 1)));
  }
}

void Loader::read_baseline(const YAML::Node& node, Spec* spec) {
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

void Loader::read_check(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  if (node.IsScalar()) {
    if (node.Scalar() != "none") {
      fail(node, "check must be a map or none, got '" + node.Scalar() +
                     "'; expected check: {rtol, atol, region, reference} or check: none");
    }
    spec->check_outputs = false;
    return;
  }
  require_map(node, "check");
  check_keys(node, {"rtol", "atol", "region", "reference"}, "check");
  if (const YAML::Node regions = node["region"]) read_check_regions(regions, spec);
  if (const YAML::Node references = node["reference"]) read_references(references, spec);
  if (const YAML::Node rtol = node["rtol"]) {
    spec->rtol = number_of(rtol, "check rtol");
    remember("check/rtol", rtol);
  }
  if (const YAML::Node atol = node["atol"]) {
    spec->atol = number_of(atol, "check atol");
    remember("check/atol", atol);
  }
}

ArgumentSpec& Loader::output_named(const YAML::Node& key, const std::string& context,
                                   Spec* spec) const {
  const std::string name = string_of(key, "an output name in " + context);
  std::vector<std::string> outputs;
  for (ArgumentSpec& argument : spec->arguments) {
    if (argument.output) outputs.push_back(argument.name);
  }
  for (ArgumentSpec& argument : spec->arguments) {
    if (argument.name == name && argument.output) return argument;
  }
  fail(key, context + " names '" + name + "', which is not an output" + suggestion(name, outputs) +
                "; expected one of: " + (outputs.empty() ? "(no outputs)" : join(outputs)));
}

std::vector<ExprText> Loader::dimensions_of(const YAML::Node& node, const std::string& what) const {
  std::vector<ExprText> out;
  if (node.IsScalar()) {
    out.push_back(expression_of(node, what));
    return out;
  }
  if (!node.IsSequence() || node.size() < 1 || node.size() > 3) {
    fail(node, what + " must be a list of 1 to 3 expressions, got " +
                   (node.IsSequence() ? std::to_string(node.size()) + " items"
                                      : std::string(kind_of(node))) +
                   "; expected [x], [y, x] or [z, y, x]");
  }
  for (size_t i = 0; i < node.size(); ++i) {
    out.push_back(expression_of(node[i], what + "[" + std::to_string(i) + "]"));
  }
  return out;
}

void Loader::read_check_regions(const YAML::Node& node, Spec* spec) {
  require_map(node, "check region");
  for (auto it = node.begin(); it != node.end(); ++it) {
    ArgumentSpec& output = output_named(it->first, "check region", spec);
    const std::string what = "check region of '" + output.name + "'";
    const YAML::Node box = it->second;
    require_map(box, what);
    check_keys(box, {"shape", "begin", "end"}, what);
    CheckRegionSpec region;
    region.where = where(it->first);
    for (const char* key : {"begin", "end"}) {
      if (!box[key]) {
        fail(box, what + " has no '" + key +
                      "'; expected begin: [...] and end: [...] (half-open, per dimension)");
      }
    }
    region.begin = dimensions_of(box["begin"], what + " begin");
    region.end = dimensions_of(box["end"], what + " end");
    if (const YAML::Node shape = box["shape"]) region.shape = dimensions_of(shape, what + " shape");
    output.check_region = std::move(region);
  }
}

void Loader::read_references(const YAML::Node& node, Spec* spec) {
  require_map(node, "check reference");
  for (auto it = node.begin(); it != node.end(); ++it) {
    // `kernel` with a map is the reference kernel; an output named kernel still takes a file.
    if (it->first.IsScalar() && it->first.Scalar() == "kernel" && it->second.IsMap()) {
      read_reference_kernel(it->second, spec);
      continue;
    }
    ArgumentSpec& output = output_named(it->first, "check reference", spec);
    const std::string relative =
        string_of(it->second, "the reference file of '" + output.name + "'");
    fs::path file(relative);
    if (file.is_relative()) file = fs::path(path_).parent_path() / file;
    try {
      output.reference = read_reference_file(file.lexically_normal().string(), output.type);
    } catch (const Error& e) {
      fail(it->second, "reference of '" + output.name + "': " + e.what());
    }
  }
}

void Loader::read_reference_kernel(const YAML::Node& node, Spec* spec) {
  const std::string context = "the reference kernel";
  check_keys(node, {"source", "name", "arguments", "launch", "options", "defines"}, context);
  ReferenceKernelSpec reference;
  reference.where = where(node);
  const YAML::Node source = node["source"], name = node["name"], launch = node["launch"];
  if (!source) fail(node, context + " has no 'source'; expected the path of a .cu file");
  if (!name) fail(node, context + " has no 'name'; expected its __global__ function's name");
  if (!launch) {
    fail(node, context + " has no 'launch'; expected launch: {grid: [...], block: [...]}");
  }
  reference.source = read_source_file(source, "reference kernel source", &reference.path);
  reference.launch.kernel_name = {string_of(name, "reference kernel name"), where(name)};
  const std::string what = "reference kernel '" + reference.launch.kernel_name.text + "'";
  require_map(launch, what + " launch");
  check_keys(launch, {"block", "grid", "shared_bytes"}, what + " launch");
  reference.launch.where = where(launch);
  read_launch_geometry(launch, what + " launch", &reference.launch);
  std::vector<std::string> argument_names;
  for (const ArgumentSpec& argument : spec->arguments) argument_names.push_back(argument.name);
  if (const YAML::Node arguments = node["arguments"]) {
    require_list(arguments, what + " arguments");
    for (const auto& argument : arguments) {
      const std::string argument_name = string_of(argument, "an argument of " + what);
      const auto it = std::find(argument_names.begin(), argument_names.end(), argument_name);
      if (it == argument_names.end()) {
        fail(argument, what + " passes '" + argument_name + "', which is not an argument" +
                           suggestion(argument_name, argument_names) +
                           "; expected one of: " + join(argument_names));
      }
      reference.launch.arguments.push_back(static_cast<size_t>(it - argument_names.begin()));
    }
  } else {
    for (size_t a = 0; a < spec->arguments.size(); ++a) reference.launch.arguments.push_back(a);
  }
  if (const YAML::Node options = node["options"]) {
    require_list(options, what + " options");
    for (const auto& option : options) {
      reference.compile_options.push_back(string_of(option, "an option of " + what));
    }
  }
  if (const YAML::Node defines = node["defines"]) {
    require_map(defines, what + " defines");
    for (auto it = defines.begin(); it != defines.end(); ++it) {
      const std::string define = string_of(it->first, "a define's name");
      reference.defines.push_back(
          {define, expression_of(it->second, what + " define '" + define + "'")});
    }
  }
  spec->reference_kernel = std::move(reference);
}

void Loader::read_metrics(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "metrics");
  check_keys(node, {"bytes", "flops"}, "metrics");
  if (const YAML::Node bytes = node["bytes"]) spec->bytes = expression_of(bytes, "metrics bytes");
  if (const YAML::Node flops = node["flops"]) spec->flops = expression_of(flops, "metrics flops");
}

void Loader::read_search(const YAML::Node& node, Spec* spec) {
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
void Loader::read_remedies(const YAML::Node& node, Spec* spec) {
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

Spec Loader::load() {
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

}  // namespace

Spec parse_spec(const std::string& text, const std::string& path, const Overrides& overrides) {
  // What a spec says ends up in JSON (stored specs, configs, reports), which is UTF-8.
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
    const size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
    const size_t column = line_start == std::string::npos || bad == 0 ? bad : bad - line_start - 1;
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad, '\n'));
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw Error(ErrorCode::kSpec, SourceLocation{path, line, static_cast<int>(column) + 1}.str() +
                                      ": byte " + byte +
                                      " is not UTF-8 text; expected a spec in UTF-8");
  }
  if (is_t1_path(path)) return parse_t1_spec(text, path, overrides);
  Loader loader(text, path, overrides);
  try {
    return loader.load();
  } catch (const YAML::Exception& e) {
    // A yaml-cpp failure the checks above did not foresee still gets a location.
    const int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    const int column = e.mark.is_null() ? 1 : e.mark.column + 1;
    throw Error(ErrorCode::kSpec, SourceLocation{path, line, column}.str() +
                                      ": unexpected structure (" + e.msg +
                                      "); expected the documented spec format");
  }
}

Spec load_spec(const std::string& path, const Overrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, path + ": cannot read the spec file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_spec(text.str(), path, overrides);
}

}  // namespace gputune
