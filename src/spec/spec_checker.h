#pragma once
// check_spec's checker (spec_check.h): what a spec's values mean, section by section. Its checks
// of arguments and the reference kernel are in spec_check_arguments.cpp, the rest in
// spec_check.cpp.
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gputune/error.h"
#include "gputune/spec.h"
#include "spec/spec_check.h"

namespace gputune {

class SpecChecker {
 public:
  SpecChecker(Spec& spec, const SpecCheckContext& context) : spec_(spec), context_(context) {
    std::istringstream in(spec.text);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
  }

  void run() {
    check_kernel();
    check_problem();
    check_parameters(false);
    check_parameters(true);
    check_defines();
    check_arguments();
    check_launches();
    check_reference_kernel();
    check_constraints();
    check_baseline();
    check_tolerances();
    check_metrics();
    check_search();
    check_remedies();
  }

 private:
  enum class Visible { kEarlierProblem, kProblem, kProblemAndParameters };

  [[noreturn]] void fail(const SourceLocation& at, const std::string& what) const {
    throw Error(ErrorCode::kSpec, at.message(what));
  }
  SourceLocation at(const std::string& key, const SourceLocation& otherwise) const {
    const auto it = context_.where.find(key);
    return it == context_.where.end() ? otherwise : it->second;
  }

  // A quoted scalar's text starts one column after its location.
  int column_shift(const SourceLocation& at) const {
    if (at.file != spec_.path || at.line < 1 || at.line > static_cast<int>(lines_.size())) {
      return 0;
    }
    const std::string& line = lines_[at.line - 1];
    if (at.column < 1 || at.column > static_cast<int>(line.size())) return 0;
    const char c = line[at.column - 1];
    return c == '"' || c == '\'' ? 1 : 0;
  }

  void check_expression(const ExprText& expr, Visible visible, const std::string& what,
                        size_t problem_count = 0, bool from_override = false) const;
  // `identifier`: the name must be one (all but an engine knob's "unroll(k_loop)").
  void define_name(const std::string& name, const SourceLocation& where, const std::string& kind,
                   bool identifier = true);
  void check_kernel_name(const ExprText& kernel_name) const;

  void check_kernel();
  void check_problem();
  void check_parameters(bool transforms);
  void check_defines() const;
  void check_arguments();
  void check_output_check(const ArgumentSpec& arg, const std::string& what) const;
  void check_generator(const ArgumentSpec& fill, const std::string& what) const;
  void check_constant_argument(const ArgumentSpec& arg, const std::string& key) const;
  void check_launches();
  void check_launch_geometry(const LaunchSpec& launch, const std::string& context,
                             Visible visible = Visible::kProblemAndParameters) const;
  void check_reference_kernel() const;
  void check_constraints() const;
  void check_baseline();
  void check_tolerances() const;
  void check_metrics() const;
  void check_search() const;
  void check_remedies() const;

  static bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  Spec& spec_;
  const SpecCheckContext& context_;
  std::vector<std::string> lines_;
  std::vector<std::string> problem_names_;
  std::vector<std::string> numeric_dimensions_;
  std::vector<std::string> symbol_dimensions_;
  std::vector<std::pair<std::string, SourceLocation>> defined_;
  std::vector<std::string> kernel_globals_;  // the kernel's __global__ functions, headers included
  std::vector<std::string> kernel_constants_;  // its __constant__ variables, headers included
};

}  // namespace gputune
