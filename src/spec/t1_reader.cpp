#include "spec/t1_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text.h"
#include "gputune/error.h"
#include "spec/spec_check.h"
#include "spec/t1_arguments.h"
#include "spec/t1_fields.h"
#include "spec/t1_json_locations.h"
#include "spec/t1_launch.h"
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

class T1Reader {
 public:
  T1Reader(const std::string& text, const std::string& path,
           const std::vector<std::pair<std::string, std::string>>& overrides)
      : text_(text), path_(path), overrides_(overrides), where_(text, path), fields_(where_) {}

  Spec read();

 private:
  void read_kernel(const json& kernel, Spec* spec);
  void read_problem(const json& kernel, Spec* spec);
  void read_parameters(const json& space, Spec* spec);
  void read_budget(const json& root, Spec* spec);
  void read_search(const json& root, Spec* spec);

  std::string text_, path_;
  std::vector<std::pair<std::string, std::string>> overrides_;
  JsonLocations where_;
  T1Fields fields_;
  SpecCheckContext context_;
};

void T1Reader::read_kernel(const json& kernel, Spec* spec) {
  const std::string at = "/KernelSpecification";
  const std::string language = fields_.string_at(
      fields_.member(kernel, at, "Language", "\"Language\": \"CUDA\""), at + "/Language");
  if (language != "CUDA") {
    fields_.fail(at + "/Language",
                 "T1 Language '" + language +
                     "' is not supported; gputune tunes CUDA kernels (expected CUDA)");
  }
  fields_.reject_unmappable(kernel, at,
                            {{"KernelTypeNames",
                              "write the template arguments in KernelName instead, "
                              "e.g. \"kernel<float, TILE>\""},
                             {"SimulationInput", "remove it: gputune measures on the GPU"}});
  const std::string name_pointer = at + "/KernelName";
  spec->kernel_name = {
      fields_.string_at(fields_.member(kernel, at, "KernelName", "the kernel's function name"),
                        name_pointer),
      where_.at(name_pointer)};
  const std::string file_pointer = at + "/KernelFile";
  const std::string relative = fields_.string_at(
      fields_.member(kernel, at, "KernelFile", "the path of the .cu file, relative to this file"),
      file_pointer);
  fs::path kernel_path(relative);
  if (kernel_path.is_relative()) kernel_path = fs::path(path_).parent_path() / kernel_path;
  spec->kernel_path = kernel_path.lexically_normal().string();
  std::ifstream in(spec->kernel_path, std::ios::binary);
  if (!in) {
    fields_.fail(file_pointer, "cannot read kernel file '" + relative + "' (looked for " +
                                   spec->kernel_path +
                                   "); expected a path relative to the T1 file");
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  spec->kernel_source = contents.str();
  context_.kernel_source_as_written = relative;
  if (kernel.contains("CompilerOptions")) {
    const json& options = kernel.at("CompilerOptions");
    if (!options.is_array())
      fields_.fail(at + "/CompilerOptions", "CompilerOptions must be a list");
    for (size_t i = 0; i < options.size(); ++i) {
      std::string option =
          fields_.string_at(options[i], at + "/CompilerOptions/" + std::to_string(i));
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
        if (!size[i].is_number()) fields_.fail(pointer, "ProblemSize entries must be numbers");
        spec->problem.push_back(
            {"ProblemSize_" + std::to_string(i), {size[i].dump(), where_.at(pointer)}});
      }
    } else if (!size.is_null()) {
      fields_.fail(at, "ProblemSize must be a number or a list of numbers, got " + size.dump());
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
  const json& parameters = fields_.member(space, at, "TuningParameters", "a list of parameters");
  if (!parameters.is_array())
    fields_.fail(at + "/TuningParameters", "TuningParameters must be a list");
  for (size_t i = 0; i < parameters.size(); ++i) {
    const std::string pointer = at + "/TuningParameters/" + std::to_string(i);
    const json& item = parameters[i];
    if (!item.is_object()) fields_.fail(pointer, "a tuning parameter must be an object");
    ParameterSpec parameter;
    parameter.name = fields_.string_at(
        fields_.member(item, pointer, "Name", "the parameter's name"), pointer + "/Name");
    parameter.where = where_.at(pointer + "/Name");
    std::string type = "int";
    if (item.contains("Type")) type = fields_.string_at(item.at("Type"), pointer + "/Type");
    if (type != "int" && type != "uint" && type != "float" && type != "bool" && type != "string") {
      fields_.fail(pointer + "/Type", "unknown T1 parameter type '" + type +
                                          "'; expected int, uint, float, bool or string");
    }
    const json& values =
        fields_.member(item, pointer, "Values", "a list expression such as \"[1, 2]\"");
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
        parameter.values = t1_values(fields_.string_at(values, values_pointer), type != "float");
      }
    } catch (const T1ValuesError& e) {
      fields_.fail(values_pointer, "parameter '" + parameter.name + "' Values: " + e.message);
    } catch (const json::exception&) {
      fields_.fail(values_pointer, "parameter '" + parameter.name +
                                       "' Values must hold numbers, booleans or strings");
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
    if (!conditions.is_array()) fields_.fail(at + "/Conditions", "Conditions must be a list");
    for (size_t i = 0; i < conditions.size(); ++i) {
      const std::string pointer = at + "/Conditions/" + std::to_string(i);
      const std::string expression =
          fields_.string_at(fields_.member(conditions[i], pointer, "Expression",
                                           "a condition such as \"A % B == 0\""),
                            pointer + "/Expression");
      spec->constraints.push_back(
          {fields_.with_problem_names(expression), where_.at(pointer + "/Expression")});
    }
  }
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
    fields_.fail(at, "Budget must be a list of {Type, BudgetValue}");
  }
  for (const auto& [item, pointer] : items) {
    const std::string type = fields_.string_at(
        fields_.member(*item, pointer, "Type", "ConfigurationCount or TuningDuration"),
        pointer + "/Type");
    const json& value = fields_.member(*item, pointer, "BudgetValue", "a positive number");
    // Counts beyond 2^53 are no budget a search reaches; and they would not convert.
    if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 9.0e15) {
      fields_.fail(pointer + "/BudgetValue",
                   "BudgetValue must be a positive number (at most 9e15)");
    }
    if (type == "ConfigurationCount") {
      spec->search.budget_evaluations = static_cast<int64_t>(value.get<double>());
    } else if (type == "TuningDuration") {
      spec->search.budget_seconds = value.get<double>();
    } else {
      fields_.fail(pointer + "/Type", "Budget type '" + type +
                                          "' is not supported; expected ConfigurationCount or "
                                          "TuningDuration (seconds), or give --budget");
    }
  }
}

void T1Reader::read_search(const json& root, Spec* spec) {
  if (!root.contains("Search")) return;
  const std::string pointer = "/Search/Name";
  const std::string name = fields_.string_at(
      fields_.member(root.at("Search"), "/Search", "Name", "a search name"), pointer);
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
  if (!root.is_object()) fields_.fail("", "a T1 file must be a JSON object");
  for (const char* required : {"ConfigurationSpace", "KernelSpecification"}) {
    if (!root.contains(required) || !root.at(required).is_object()) {
      fields_.fail("",
                   std::string("the T1 file has no '") + required + "' object; expected " +
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
    read_t1_arguments(kernel, fields_, path_, &context_, &spec);
    read_t1_references(kernel, fields_, path_, &spec);
    read_t1_launch(kernel, fields_, &spec);
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
