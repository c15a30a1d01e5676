// A YAML spec's arguments, launch and launches (yaml_loader.h).
#include "spec/yaml_loader.h"

#include <algorithm>
#include <string>

#include "core/text.h"

namespace gputune {

void YamlLoader::read_arguments(const YAML::Node& node, Spec* spec) {
  require_list(node, "arguments");
  remember("arguments", node);
  for (size_t i = 0; i < node.size(); ++i) {
    ArgumentSpec arg;
    read_argument(node[i], i, &arg);
    spec->arguments.push_back(std::move(arg));
  }
}

void YamlLoader::read_argument(const YAML::Node& item, size_t index, ArgumentSpec* arg) {
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
                                          : std::string(yaml_kind(range))) +
                      "; expected [low, high]");
    }
    arg->fill_low = number_of(range[0], what + " range low");
    arg->fill_high = number_of(range[1], what + " range high");
    remember(key + "range", range);
  }
}

void YamlLoader::read_launch_geometry(const YAML::Node& node, const std::string& context,
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
                                          : std::string(yaml_kind(dims))) +
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

void YamlLoader::read_launch(const YAML::Node& node, Spec* spec) {
  require_map(node, "launch");
  check_keys(node, {"block", "grid", "shared_bytes"}, "launch");
  LaunchSpec launch;
  launch.kernel_name = spec->kernel_name;
  launch.where = where(node);
  for (size_t a = 0; a < spec->arguments.size(); ++a) launch.arguments.push_back(a);
  read_launch_geometry(node, "launch", &launch);
  spec->launches.push_back(std::move(launch));
}

void YamlLoader::read_launches(const YAML::Node& node, Spec* spec) {
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

}  // namespace gputune
