// A YAML spec's check: tolerances, regions, references and the reference kernel (yaml_loader.h).
#include "spec/yaml_loader.h"

#include <filesystem>
#include <string>

#include "core/text.h"
#include "spec/reference_file.h"

namespace gputune {

namespace fs = std::filesystem;

void YamlLoader::read_check(const YAML::Node& node, Spec* spec) {
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

ArgumentSpec& YamlLoader::output_named(const YAML::Node& key, const std::string& context,
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

std::vector<ExprText> YamlLoader::dimensions_of(const YAML::Node& node,
                                                const std::string& what) const {
  std::vector<ExprText> out;
  if (node.IsScalar()) {
    out.push_back(expression_of(node, what));
    return out;
  }
  if (!node.IsSequence() || node.size() < 1 || node.size() > 3) {
    fail(node, what + " must be a list of 1 to 3 expressions, got " +
                   (node.IsSequence() ? std::to_string(node.size()) + " items"
                                      : std::string(yaml_kind(node))) +
                   "; expected [x], [y, x] or [z, y, x]");
  }
  for (size_t i = 0; i < node.size(); ++i) {
    out.push_back(expression_of(node[i], what + "[" + std::to_string(i) + "]"));
  }
  return out;
}

void YamlLoader::read_check_regions(const YAML::Node& node, Spec* spec) {
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

void YamlLoader::read_references(const YAML::Node& node, Spec* spec) {
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

void YamlLoader::read_reference_kernel(const YAML::Node& node, Spec* spec) {
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

}  // namespace gputune
