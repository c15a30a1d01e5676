#pragma once
// The YAML spec reader (load_spec's for a file that is not T1): the document's shape, keys, types
// and files. Its sections are read in yaml_loader.cpp (the document, kernel, problem,
// parameters, constraints, baseline, metrics, search, remedies), yaml_loader_arguments.cpp
// (arguments and launches) and yaml_loader_check.cpp (check: and what it names).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "gputune/spec.h"
#include "spec/spec_check.h"
#include "spec/spec_loader.h"

namespace gputune {

// "a map", "a list", "a scalar", "nothing": what a node is, for messages.
const char* yaml_kind(const YAML::Node& node);

// YAML to Spec: the document's shape, keys, types and files. What the values mean is
// check_spec's, which gets the locations of the nodes it may point at.
class YamlLoader {
 public:
  YamlLoader(const std::string& text, const std::string& path, const Overrides& overrides)
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
           what + " must be a map, got " + yaml_kind(node) + "; expected " + "key: value pairs");
  }
  void require_list(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence())
      fail(node, what + " must be a list, got " + yaml_kind(node) +
                     "; expected [a, b, ...] or '- ' items");
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

}  // namespace gputune
