#include "spec/t1_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/text.h"
#include "gputune/error.h"
#include "spec/spec_check.h"
#include "spec/t1_fill.h"
#include "spec/t1_grid.h"
#include "spec/t1_json_locations.h"
#include "spec/t1_measure.h"
#include "spec/t1_values.h"

namespace gputune {
namespace {

// Whether a T1 Default is one of the parameter's values (numbers compare by value).
bool default_among_values(const nlohmann::json& fallback, const ParameterSpec& parameter) {
  for (const Value& value : parameter.values) {
    if (fallback.is_number() && value.is_number() && fallback.get<double>() == value.as_number()) {
      return true;
    }
    if (fallback.is_boolean() && value.is_number() &&
        value.as_number() == (fallback.get<bool>() ? 1 : 0)) {
      return true;
    }
    if (fallback.is_string() && !value.is_number() && fallback.get<std::string>() == value.text()) {
      return true;
    }
  }
  return parameter.values.empty();
}

namespace fs = std::filesystem;
using json = nlohmann::json;

struct ElementType {
  ScalarType type;
  int lanes;  // float4: 4 floats per element
};

// T1 argument types gputune can pass: scalars, and CUDA's vector types as that many scalars.
bool element_type_of(const std::string& name, ElementType* out) {
  static const std::vector<std::pair<std::string, ScalarType>> kScalars = {
      {"bool", ScalarType::kUint8},    {"int8", ScalarType::kInt8},
      {"uint8", ScalarType::kUint8},   {"int16", ScalarType::kInt16},
      {"uint16", ScalarType::kUint16}, {"int32", ScalarType::kInt32},
      {"uint32", ScalarType::kUint32}, {"int64", ScalarType::kInt64},
      {"uint64", ScalarType::kUint64}, {"float", ScalarType::kFloat32},
      {"double", ScalarType::kFloat64}};
  for (const auto& [scalar, type] : kScalars) {
    if (name == scalar) {
      *out = {type, 1};
      return true;
    }
    for (int lanes : {2, 3, 4, 8, 16}) {
      if ((scalar == "float" || scalar == "double") && name == scalar + std::to_string(lanes)) {
        *out = {type, lanes};
        return true;
      }
    }
  }
  return false;
}

class T1Reader {
 public:
  T1Reader(const std::string& text, const std::string& path,
           const std::vector<std::pair<std::string, std::string>>& overrides)
      : text_(text), path_(path), overrides_(overrides), where_(text, path) {}

  Spec read();

 private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const {
    throw Error(ErrorCode::kSpec, where_.at(pointer).str() + ": " + what);
  }
  const json& member(const json& object, const std::string& pointer, const std::string& key,
                     const std::string& expected) const {
    if (!object.contains(key)) {
      fail(pointer, pointer_name(pointer) + " has no '" + key + "'; expected " + expected);
    }
    return object.at(key);
  }
  static std::string pointer_name(const std::string& pointer) {
    return pointer.empty() ? "the T1 file" : pointer.substr(1);
  }
  std::string string_at(const json& value, const std::string& pointer) const {
    if (!value.is_string()) {
      fail(pointer, pointer_name(pointer) + " must be a string, got " + value.dump());
    }
    return value.get<std::string>();
  }
  // Sizes and launch dimensions are strings in the schema; published files also write numbers.
  std::string expression_at(const json& value, const std::string& pointer) const {
    if (value.is_number()) return value.dump();
    return with_problem_names(string_at(value, pointer));
  }
  // "ProblemSize [ 0 ]" -> "ProblemSize_0".
  static std::string with_problem_names(const std::string& text) {
    static const std::string kName = "ProblemSize";
    std::string out;
    size_t copied = 0;
    for (size_t at = text.find(kName); at != std::string::npos; at = text.find(kName, at + 1)) {
      if (at < copied) continue;
      const size_t open = skip_spaces(text, at + kName.size());
      if (open >= text.size() || text[open] != '[') continue;
      const size_t digits = skip_spaces(text, open + 1);
      const size_t digits_end = skip_digits(text, digits);
      const size_t close = skip_spaces(text, digits_end);
      if (digits_end == digits || close >= text.size() || text[close] != ']') continue;
      out +=
          text.substr(copied, at - copied) + kName + "_" + text.substr(digits, digits_end - digits);
      copied = close + 1;
    }
    return out + text.substr(copied);
  }
  void reject_unmappable(const json& object, const std::string& pointer,
                         const std::vector<std::pair<std::string, std::string>>& keys) const {
    for (const auto& [key, instead] : keys) {
      if (object.contains(key) && !object.at(key).is_null() &&
          !(object.at(key).is_array() && object.at(key).empty())) {
        fail(pointer + "/" + key, "T1 '" + key + "' is not supported by gputune; " + instead);
      }
    }
  }

  void read_kernel(const json& kernel, Spec* spec);
  void read_problem(const json& kernel, Spec* spec);
  void read_parameters(const json& space, Spec* spec);
  void read_arguments(const json& kernel, Spec* spec);
  void read_references(const json& kernel, Spec* spec);
  void read_argument(const json& item, const std::string& pointer, ArgumentSpec* arg);
  void read_launch(const json& kernel, Spec* spec);
  std::vector<ExprText> divided_grid_of(const json& kernel, const Spec& spec,
                                        const std::vector<ExprText>& global_grid,
                                        std::vector<std::string>* warnings) const;
  void read_budget(const json& root, Spec* spec);
  void read_search(const json& root, Spec* spec);

  std::string text_, path_;
  std::vector<std::pair<std::string, std::string>> overrides_;
  JsonLocations where_;
  SpecCheckContext context_;
};

void T1Reader::read_kernel(const json& kernel, Spec* spec) {
  const std::string at = "/KernelSpecification";
  const std::string language =
      string_at(member(kernel, at, "Language", "\"Language\": \"CUDA\""), at + "/Language");
  if (language != "CUDA") {
    fail(at + "/Language", "T1 Language '" + language +
                               "' is not supported; gputune tunes CUDA kernels (expected CUDA)");
  }
  reject_unmappable(kernel, at,
                    {{"KernelTypeNames",
                      "write the template arguments in KernelName instead, "
                      "e.g. \"kernel<float, TILE>\""},
                     {"SimulationInput", "remove it: gputune measures on the GPU"}});
  const std::string name_pointer = at + "/KernelName";
  spec->kernel_name = {
      string_at(member(kernel, at, "KernelName", "the kernel's function name"), name_pointer),
      where_.at(name_pointer)};
  const std::string file_pointer = at + "/KernelFile";
  const std::string relative =
      string_at(member(kernel, at, "KernelFile", "the path of the .cu file, relative to this file"),
                file_pointer);
  fs::path kernel_path(relative);
  if (kernel_path.is_relative()) kernel_path = fs::path(path_).parent_path() / kernel_path;
  spec->kernel_path = kernel_path.lexically_normal().string();
  std::ifstream in(spec->kernel_path, std::ios::binary);
  if (!in) {
    fail(file_pointer, "cannot read kernel file '" + relative + "' (looked for " +
                           spec->kernel_path + "); expected a path relative to the T1 file");
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  spec->kernel_source = contents.str();
  context_.kernel_source_as_written = relative;
  if (kernel.contains("CompilerOptions")) {
    const json& options = kernel.at("CompilerOptions");
    if (!options.is_array()) fail(at + "/CompilerOptions", "CompilerOptions must be a list");
    for (size_t i = 0; i < options.size(); ++i) {
      std::string option = string_at(options[i], at + "/CompilerOptions/" + std::to_string(i));
      if (!trim(option).empty()) spec->compile_options.push_back(option);  // KTT's files: [""]
    }
  }
}

// T1 has no named problem values; BAT's files give ProblemSize, which --set can change.
void T1Reader::read_problem(const json& kernel, Spec* spec) {
  const std::string at = "/KernelSpecification/ProblemSize";
  if (kernel.contains("ProblemSize")) {
    const json& size = kernel.at("ProblemSize");
    if (size.is_number()) {
      spec->problem.push_back({"ProblemSize", {size.dump(), where_.at(at)}});
    } else if (size.is_array()) {
      for (size_t i = 0; i < size.size(); ++i) {
        const std::string pointer = at + "/" + std::to_string(i);
        if (!size[i].is_number()) fail(pointer, "ProblemSize entries must be numbers");
        spec->problem.push_back(
            {"ProblemSize_" + std::to_string(i), {size[i].dump(), where_.at(pointer)}});
      }
    } else if (!size.is_null()) {
      fail(at, "ProblemSize must be a number or a list of numbers, got " + size.dump());
    }
  }
  std::vector<std::string> names;
  for (const auto& entry : spec->problem) names.push_back(entry.first);
  for (const auto& [name, text] : overrides_) {
    auto it = std::find_if(spec->problem.begin(), spec->problem.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it == spec->problem.end()) {
      throw Error(ErrorCode::kUsage,
                  path_ + ": --set " + name + "=" + text + ": '" + name +
                      "' is not a problem value" + suggestion(name, names) +
                      "; a T1 file's problem values are ProblemSize (ProblemSize_0, ... for a "
                      "list): " +
                      (names.empty() ? "this file has none" : join(names)));
    }
    it->second.text = text;
    context_.overridden.insert(name);
  }
}

void T1Reader::read_parameters(const json& space, Spec* spec) {
  const std::string at = "/ConfigurationSpace";
  const json& parameters = member(space, at, "TuningParameters", "a list of parameters");
  if (!parameters.is_array()) fail(at + "/TuningParameters", "TuningParameters must be a list");
  for (size_t i = 0; i < parameters.size(); ++i) {
    const std::string pointer = at + "/TuningParameters/" + std::to_string(i);
    const json& item = parameters[i];
    if (!item.is_object()) fail(pointer, "a tuning parameter must be an object");
    ParameterSpec parameter;
    parameter.name =
        string_at(member(item, pointer, "Name", "the parameter's name"), pointer + "/Name");
    parameter.where = where_.at(pointer + "/Name");
    std::string type = "int";
    if (item.contains("Type")) type = string_at(item.at("Type"), pointer + "/Type");
    if (type != "int" && type != "uint" && type != "float" && type != "bool" && type != "string") {
      fail(pointer + "/Type",
           "unknown T1 parameter type '" + type + "'; expected int, uint, float, bool or string");
    }
    const json& values = member(item, pointer, "Values", "a list expression such as \"[1, 2]\"");
    const std::string values_pointer = pointer + "/Values";
    try {
      if (values.is_array()) {
        for (const json& v : values) {
          if (v.is_number_integer()) {
            parameter.values.push_back(Value(v.get<int64_t>()));
          } else if (v.is_number()) {
            parameter.values.push_back(Value(v.get<double>()));
          } else if (v.is_boolean()) {
            parameter.values.push_back(Value(int64_t{v.get<bool>() ? 1 : 0}));
          } else {
            parameter.values.push_back(Value(v.get<std::string>()));
          }
        }
      } else {
        parameter.values = t1_values(string_at(values, values_pointer), type != "float");
      }
    } catch (const T1ValuesError& e) {
      fail(values_pointer, "parameter '" + parameter.name + "' Values: " + e.message);
    } catch (const json::exception&) {
      fail(values_pointer,
           "parameter '" + parameter.name + "' Values must hold numbers, booleans or strings");
    }
    context_.where["values/" + parameter.name] = where_.at(values_pointer);
    if (item.contains("Default") && !default_among_values(item.at("Default"), parameter)) {
      // Published files hold such Defaults (BAT's hotspot: MAX_TFACTOR 1 of [10]); Kernel Tuner
      // and KTT ignore Default, so the file still runs, from the spec check's baseline.
      spec->warnings.push_back(where_.at(pointer + "/Default").str() + ": parameter '" +
                               parameter.name + "' Default " + item.at("Default").dump() +
                               " is not among its Values; the baseline takes " +
                               parameter.values.front().text() + " instead");
    } else if (item.contains("Default")) {
      const json& fallback = item.at("Default");
      context_.where["baseline/" + std::to_string(spec->baseline.size()) + "/name"] =
          where_.at(pointer + "/Default");
      context_.where["baseline/" + std::to_string(spec->baseline.size()) + "/value"] =
          where_.at(pointer + "/Default");
      if (fallback.is_number_integer()) {
        spec->baseline.push_back({parameter.name, Value(fallback.get<int64_t>())});
      } else if (fallback.is_number()) {
        spec->baseline.push_back({parameter.name, Value(fallback.get<double>())});
      } else if (fallback.is_boolean()) {
        spec->baseline.push_back({parameter.name, Value(int64_t{fallback.get<bool>() ? 1 : 0})});
      } else if (fallback.is_string()) {
        spec->baseline.push_back({parameter.name, Value(fallback.get<std::string>())});
      }
    }
    spec->parameters.push_back(std::move(parameter));
  }
  if (!spec->baseline.empty()) spec->baseline_where = where_.at(at + "/TuningParameters");
  // Published files hold Defaults that break their own Conditions (BAT's hotspot:
  // TEMPORAL_TILING_FACTOR 1 with LOOP_UNROLL_FACTOR_T 2); other tuners never run the Defaults.
  spec->baseline_nearest_valid = true;
  spec->constraints_where = where_.at(at + "/Conditions");
  if (space.contains("Conditions")) {
    const json& conditions = space.at("Conditions");
    if (!conditions.is_array()) fail(at + "/Conditions", "Conditions must be a list");
    for (size_t i = 0; i < conditions.size(); ++i) {
      const std::string pointer = at + "/Conditions/" + std::to_string(i);
      const std::string expression = string_at(
          member(conditions[i], pointer, "Expression", "a condition such as \"A % B == 0\""),
          pointer + "/Expression");
      spec->constraints.push_back(
          {with_problem_names(expression), where_.at(pointer + "/Expression")});
    }
  }
}

void T1Reader::read_argument(const json& item, const std::string& pointer, ArgumentSpec* arg) {
  if (!item.is_object()) fail(pointer, "an argument must be an object");
  const std::string index = pointer.substr(pointer.rfind('/') + 1);
  arg->name = item.contains("Name") ? string_at(item.at("Name"), pointer + "/Name") : "arg" + index;
  arg->where = where_.at(pointer);
  context_.where["arguments/" + index + "/name"] = where_.at(pointer + "/Name");
  const std::string what = "argument '" + arg->name + "'";
  const std::string memory = string_at(
      member(item, pointer, "MemoryType", "Scalar, Vector or Symbol"), pointer + "/MemoryType");
  if (memory == "Local") {
    fail(pointer + "/MemoryType", what +
                                      " is Local memory, an OpenCL __local argument that a "
                                      "CUDA kernel has no parameter for; use "
                                      "KernelSpecification.SharedMemory (dynamic shared "
                                      "memory) instead");
  }
  if (memory != "Scalar" && memory != "Vector" && memory != "Symbol") {
    fail(pointer + "/MemoryType",
         "unknown MemoryType '" + memory + "' for " + what + "; expected Scalar, Vector or Symbol");
  }
  const std::string type_name_text =
      string_at(member(item, pointer, "Type", "int32, float, double, ..."), pointer + "/Type");
  ElementType element{};
  if (!element_type_of(type_name_text, &element)) {
    fail(pointer + "/Type", what + " has type '" + type_name_text +
                                "', which gputune cannot fill; expected bool, int8 .. uint64, "
                                "float, double or floatN/doubleN (half and custom types are "
                                "not supported)");
  }
  arg->type = element.type;
  // A Symbol is the module's __constant__ variable of its Name, filled like a Vector.
  arg->constant = memory == "Symbol";
  arg->is_buffer = memory != "Scalar";
  if (arg->constant) {
    // T1 has no other name for the symbol, so the check's hint at `symbol:` would not apply.
    arg->symbol = arg->name;
    context_.where["arguments/" + index + "/constant"] = where_.at(pointer + "/MemoryType");
    context_.where["arguments/" + index + "/symbol"] = where_.at(pointer + "/Name");
  }
  if (!arg->is_buffer) {
    if (element.lanes != 1) fail(pointer + "/Type", what + " is a vector type passed by value");
    const json& value = member(item, pointer, "FillValue", "the scalar's value");
    arg->value = {expression_at(value, pointer + "/FillValue"), where_.at(pointer + "/FillValue")};
    return;
  }
  // A Symbol without a Size is a single variable (`__constant__ float scale;`).
  const std::string size =
      arg->constant && !item.contains("Size")
          ? "1"
          : expression_at(member(item, pointer, "Size", "the number of elements"),
                          pointer + "/Size");
  arg->count = {element.lanes == 1 ? size : "(" + size + ") * " + std::to_string(element.lanes),
                where_.at(pointer + "/Size")};
  std::string access = "ReadWrite";
  if (item.contains("AccessType"))
    access = string_at(item.at("AccessType"), pointer + "/AccessType");
  bool output = access == "WriteOnly";
  if (item.contains("Output")) {
    const json& flag = item.at("Output");
    output = flag.is_boolean() ? flag.get<bool>() : (flag.is_number() && flag.get<double>() != 0);
  }
  arg->output = output;
  context_.where["arguments/" + index + "/output"] = where_.at(pointer);
  // An output with a fill starts from it (elements the kernel leaves alone compare equal);
  // without one it is poisoned, so that every element must be written.
  arg->initialised = output && (item.contains("FillType") || item.contains("FillValue"));
  if (output && !arg->initialised) return;
  read_t1_fill(item, pointer, where_, path_, what, arg);
}

// ReferenceArguments: each names an output (TargetName, else Name) and fills its expected
// contents as an argument is filled; every variant, the baseline included, is checked
// against them instead of against the baseline's outputs.
void T1Reader::read_references(const json& kernel, Spec* spec) {
  const std::string at = "/KernelSpecification/ReferenceArguments";
  if (!kernel.contains("ReferenceArguments") || kernel.at("ReferenceArguments").is_null()) return;
  const json& references = kernel.at("ReferenceArguments");
  if (!references.is_array()) fail(at, "ReferenceArguments must be a list");
  std::vector<std::string> outputs;
  for (const ArgumentSpec& arg : spec->arguments) {
    if (arg.output) outputs.push_back(arg.name);
  }
  for (size_t i = 0; i < references.size(); ++i) {
    const std::string pointer = at + "/" + std::to_string(i);
    const json& item = references[i];
    if (!item.is_object()) fail(pointer, "a reference argument must be an object");
    const char* key = item.contains("TargetName") ? "TargetName" : "Name";
    const std::string target = string_at(
        member(item, pointer, key, "the Name of the output it holds the expected contents of"),
        pointer + "/" + key);
    auto output = std::find_if(spec->arguments.begin(), spec->arguments.end(),
                               [&](const ArgumentSpec& arg) { return arg.name == target; });
    if (output == spec->arguments.end() || !output->output) {
      fail(pointer + "/" + key,
           "reference argument " + std::to_string(i) + " is for '" + target + "', which is " +
               (output == spec->arguments.end() ? "not an argument" : "not an output") +
               suggestion(target, outputs) + "; expected one of the outputs: " +
               (outputs.empty() ? "this file has none (AccessType WriteOnly or \"Output\": 1)"
                                : join(outputs)));
    }
    if (output->reference_fill) {
      fail(pointer + "/" + key,
           "a second reference argument for '" + target + "'; expected one per output");
    }
    if (item.contains("Type")) {
      ElementType element{};
      const std::string type = string_at(item.at("Type"), pointer + "/Type");
      if (!element_type_of(type, &element) || element.type != output->type) {
        fail(pointer + "/Type", "reference argument for '" + target + "' has type '" + type +
                                    "'; expected the output's, " + type_name(output->type));
      }
    }
    auto reference = std::make_shared<ArgumentSpec>(*output);
    reference->where = where_.at(pointer);
    read_t1_fill(item, pointer, where_, path_, "reference argument for '" + target + "'",
                 reference.get());
    output->reference_fill = std::move(reference);
  }
}

void T1Reader::read_arguments(const json& kernel, Spec* spec) {
  const std::string at = "/KernelSpecification/Arguments";
  if (!kernel.contains("Arguments")) {
    fail("/KernelSpecification",
         "KernelSpecification has no 'Arguments'; expected the kernel's "
         "arguments in order");
  }
  const json& arguments = kernel.at("Arguments");
  if (!arguments.is_array()) fail(at, "Arguments must be a list");
  context_.where["arguments"] = where_.at(at);
  for (size_t i = 0; i < arguments.size(); ++i) {
    ArgumentSpec arg;
    read_argument(arguments[i], at + "/" + std::to_string(i), &arg);
    spec->arguments.push_back(std::move(arg));
  }
}

void T1Reader::read_launch(const json& kernel, Spec* spec) {
  const std::string at = "/KernelSpecification";
  LaunchSpec launch;
  launch.kernel_name = spec->kernel_name;
  launch.where = where_.at(at);
  for (size_t a = 0; a < spec->arguments.size(); ++a) launch.arguments.push_back(a);
  std::string size_type = "CUDA";
  if (kernel.contains("GlobalSizeType")) {
    size_type = string_at(kernel.at("GlobalSizeType"), at + "/GlobalSizeType");
  }
  if (size_type != "CUDA" && size_type != "OpenCL") {
    fail(at + "/GlobalSizeType", "GlobalSizeType '" + size_type +
                                     "' is not supported; expected CUDA (GlobalSize is the grid) "
                                     "or OpenCL (GlobalSize counts threads)");
  }
  // BAT's runners launch a file with ProblemSize from it and the grid divisors, not GlobalSize.
  const bool divided =
      !spec->problem.empty() && (kernel.contains("GridDivX") || kernel.contains("GridDivY") ||
                                 !kernel.contains("GlobalSize"));
  const json& local = member(kernel, at, "LocalSize", "{\"X\": ..., \"Y\": ..., \"Z\": ...}");
  const json no_global = json::object();
  const json& global =
      divided && !kernel.contains("GlobalSize")
          ? no_global
          : member(kernel, at, "GlobalSize", "{\"X\": ..., \"Y\": ..., \"Z\": ...}");
  std::vector<ExprText> global_grid;
  for (const char* axis : {"X", "Y", "Z"}) {
    const bool in_global = global.contains(axis), in_local = local.contains(axis);
    if (!in_global && !in_local) break;
    const std::string g_pointer = at + "/GlobalSize/" + axis;
    const std::string l_pointer = at + "/LocalSize/" + axis;
    const std::string block = in_local ? expression_at(local.at(axis), l_pointer) : "1";
    std::string grid = in_global ? expression_at(global.at(axis), g_pointer) : "1";
    if (size_type == "OpenCL") grid = "ceil((" + grid + ") / (" + block + "))";
    launch.block.push_back({block, where_.at(l_pointer)});
    global_grid.push_back({grid, where_.at(g_pointer)});
  }
  if (launch.block.empty()) fail(at + "/LocalSize", "LocalSize has no X; expected at least X");
  launch.grid =
      divided ? divided_grid_of(kernel, *spec, global_grid, &spec->warnings) : global_grid;
  if (kernel.contains("SharedMemory") && !kernel.at("SharedMemory").is_null()) {
    const json& shared = kernel.at("SharedMemory");
    if (!(shared.is_number() && shared.get<double>() == 0)) {
      launch.dynamic_shared_bytes =
          ExprText{expression_at(shared, at + "/SharedMemory"), where_.at(at + "/SharedMemory")};
    }
  }
  spec->launches_where = where_.at(at);
  spec->launches.push_back(std::move(launch));
}

// The grid from ProblemSize and GridDivX/GridDivY, as Kernel Tuner computes it from
// problem_size and grid_div_x/y: a divisor list of parameter expressions per axis, null or
// absent meaning block_size_x/y/z where the file has that parameter. A GlobalSize that gives
// another grid at the Defaults is a warning (added to `warnings`): the grid follows the divisors.
std::vector<ExprText> T1Reader::divided_grid_of(const json& kernel, const Spec& spec,
                                                const std::vector<ExprText>& global_grid,
                                                std::vector<std::string>* warnings) const {
  const std::string at = "/KernelSpecification";
  std::vector<std::string> problem_names;
  for (const auto& [name, text] : spec.problem) problem_names.push_back(name);
  if (problem_names.size() > 3) {
    fail(at + "/ProblemSize", "ProblemSize has " + std::to_string(problem_names.size()) +
                                  " entries and the grid comes from it (GridDivX/GridDivY); "
                                  "expected at most 3, one per grid dimension");
  }
  std::vector<ExprText> grid;
  const char* kAxes[] = {"X", "Y", "Z"};
  const char* kBlockNames[] = {"block_size_x", "block_size_y", "block_size_z"};
  for (size_t d = 0; d < problem_names.size(); ++d) {
    const std::string key = std::string("GridDiv") + kAxes[d];
    const std::string pointer = at + "/" + key;
    std::vector<std::string> divisors;
    if (kernel.contains(key) && !kernel.at(key).is_null()) {
      const json& list = kernel.at(key);
      if (!list.is_array()) fail(pointer, key + " must be a list of parameter expressions");
      for (size_t i = 0; i < list.size(); ++i) {
        divisors.push_back(expression_at(list[i], pointer + "/" + std::to_string(i)));
      }
    } else {
      for (const ParameterSpec& parameter : spec.parameters) {
        if (parameter.name == kBlockNames[d]) divisors.push_back(parameter.name);
      }
    }
    const std::string problem_pointer =
        at + "/ProblemSize" +
        (problem_names.size() > 1 || problem_names[0] != "ProblemSize" ? "/" + std::to_string(d)
                                                                       : "");
    grid.push_back({divided_grid(problem_names[d], divisors),
                    where_.at(kernel.contains(key) ? pointer : problem_pointer)});
  }
  if (global_grid.empty() || !kernel.contains("GlobalSize")) return grid;
  const std::optional<std::vector<double>> from_global = at_baseline(spec, global_grid);
  const std::optional<std::vector<double>> from_divisors = at_baseline(spec, grid);
  auto padded = [](std::vector<double> v) {
    v.resize(3, 1);
    return v;
  };
  if (from_global && from_divisors && padded(*from_global) != padded(*from_divisors)) {
    auto text = [](const std::vector<double>& v) {
      std::string out;
      for (double x : v) {
        char number[32];
        std::snprintf(number, sizeof number, "%g", x);
        out += (out.empty() ? "" : ", ") + std::string(number);
      }
      return "(" + out + ")";
    };
    warnings->push_back(
        where_.at(at + "/GlobalSize").str() + ": GlobalSize gives the grid " + text(*from_global) +
        " at the Defaults, but ProblemSize with the grid divisors gives " + text(*from_divisors) +
        "; the grid is taken from ProblemSize and GridDivX/GridDivY, as BAT's "
        "runners do");
  }
  return grid;
}

// The schema's Budget is a list; BAT writes one object. The first budget of each kind counts.
void T1Reader::read_budget(const json& root, Spec* spec) {
  if (!root.contains("Budget")) return;
  const json& budget = root.at("Budget");
  const std::string at = "/Budget";
  std::vector<std::pair<const json*, std::string>> items;
  if (budget.is_object()) {
    items.push_back({&budget, at});
  } else if (budget.is_array()) {
    for (size_t i = 0; i < budget.size(); ++i) {
      items.push_back({&budget[i], at + "/" + std::to_string(i)});
    }
  } else {
    fail(at, "Budget must be a list of {Type, BudgetValue}");
  }
  for (const auto& [item, pointer] : items) {
    const std::string type = string_at(
        member(*item, pointer, "Type", "ConfigurationCount or TuningDuration"), pointer + "/Type");
    const json& value = member(*item, pointer, "BudgetValue", "a positive number");
    // Counts beyond 2^53 are no budget a search reaches; and they would not convert.
    if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 9.0e15) {
      fail(pointer + "/BudgetValue", "BudgetValue must be a positive number (at most 9e15)");
    }
    if (type == "ConfigurationCount") {
      spec->search.budget_evaluations = static_cast<int64_t>(value.get<double>());
    } else if (type == "TuningDuration") {
      spec->search.budget_seconds = value.get<double>();
    } else {
      fail(pointer + "/Type", "Budget type '" + type +
                                  "' is not supported; expected ConfigurationCount or "
                                  "TuningDuration (seconds), or give --budget");
    }
  }
}

void T1Reader::read_search(const json& root, Spec* spec) {
  if (!root.contains("Search")) return;
  const std::string pointer = "/Search/Name";
  const std::string name =
      string_at(member(root.at("Search"), "/Search", "Name", "a search name"), pointer);
  static const std::vector<std::pair<std::string, std::string>> kNames = {
      {"Random", "random"},
      {"RandomSearch", "random"},
      {"Deterministic", "brute_force"},
      {"BruteForce", "brute_force"},
      {"FullSearch", "brute_force"},
      {"Exhaustive", "brute_force"},
      {"SimulatedAnnealing", "annealing"},
      {"Annealing", "annealing"},
      {"GeneticAlgorithm", "genetic"},
      {"Genetic", "genetic"}};
  for (const auto& [t1, ours] : kNames) {
    if (name == t1) {
      spec->search.strategy = ours;
      return;
    }
  }
  spec->search.strategy = name;  // one of gputune's own names; the session checks it
  context_.where["search/strategy"] = where_.at(pointer);
}

Spec T1Reader::read() {
  json root;
  try {
    // Comments are allowed: the check a search changed is one (gputune/spec.h override_check).
    root = json::parse(text_, nullptr, true, true);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e999
    throw Error(ErrorCode::kSpec, path_ + ": invalid JSON (" + std::string(e.what()) +
                                      "); expected a T1 tuning-problem file");
  }
  if (!root.is_object()) fail("", "a T1 file must be a JSON object");
  for (const char* required : {"ConfigurationSpace", "KernelSpecification"}) {
    if (!root.contains(required) || !root.at(required).is_object()) {
      fail("", std::string("the T1 file has no '") + required + "' object; expected " +
                   "ConfigurationSpace and KernelSpecification (the T1 tuning-problem format)");
    }
  }
  const json& kernel = root.at("KernelSpecification");
  Spec spec;
  spec.path = path_;
  spec.text = text_;
  if (root.contains("General") && root.at("General").contains("BenchmarkName") &&
      root.at("General").at("BenchmarkName").is_string()) {
    spec.description = root.at("General").at("BenchmarkName").get<std::string>();
  }
  try {
    read_kernel(kernel, &spec);
    read_problem(kernel, &spec);
    read_parameters(root.at("ConfigurationSpace"), &spec);
    read_arguments(kernel, &spec);
    read_references(kernel, &spec);
    read_launch(kernel, &spec);
    read_budget(root, &spec);
    read_search(root, &spec);
    read_t1_objective(root, where_, &spec.warnings);
    time_unchecked_without_outputs(where_, &spec);
  } catch (const json::exception& e) {
    // A member of another type than the reader checks for: still the file's error, not ours.
    throw Error(ErrorCode::kSpec, path_ + ": unexpected JSON (" + std::string(e.what()) +
                                      "); expected a T1 tuning-problem file");
  }
  check_spec(spec, context_);
  return spec;
}

}  // namespace

bool is_t1_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

Spec parse_t1_spec(const std::string& text, const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& overrides) {
  return T1Reader(text, path, overrides).read();
}

}  // namespace gputune
