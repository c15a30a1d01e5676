#pragma once
// Reading the members of a T1 file's JSON: each error placed at its member, by JSON pointer
// ("/KernelSpecification/Arguments/2/Size"), as Error(kSpec) "file:line:column: ...".
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "gputune/spec.h"
#include "spec/t1_json_locations.h"

namespace gputune {

class T1Fields {
 public:
  explicit T1Fields(const JsonLocations& where) : where_(where) {}

  const JsonLocations& locations() const { return where_; }
  SourceLocation at(const std::string& pointer) const { return where_.at(pointer); }
  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const;

  // object[key], which must be there: `expected` says what it holds.
  const nlohmann::json& member(const nlohmann::json& object, const std::string& pointer,
                               const std::string& key, const std::string& expected) const;
  std::string string_at(const nlohmann::json& value, const std::string& pointer) const;
  // An expression: sizes and launch dimensions are strings in the schema, and published files
  // also write numbers. ProblemSize[i] becomes the problem value ProblemSize_i.
  std::string expression_at(const nlohmann::json& value, const std::string& pointer) const;
  // A T1 feature gputune cannot map, present and not empty, is refused with what to do instead:
  // `keys` pairs each member with that advice.
  void reject_unmappable(const nlohmann::json& object, const std::string& pointer,
                         const std::vector<std::pair<std::string, std::string>>& keys) const;

  // "ProblemSize [ 0 ]" -> "ProblemSize_0".
  static std::string with_problem_names(const std::string& text);
  // "KernelSpecification/Arguments" for its pointer; "the T1 file" for the root.
  static std::string pointer_name(const std::string& pointer);

 private:
  const JsonLocations& where_;
};

}  // namespace gputune
