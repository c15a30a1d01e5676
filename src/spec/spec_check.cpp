#include "spec/spec_check.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/expression.h"
#include "core/hash.h"
#include "core/remedy.h"
#include "core/text.h"
#include "gputune/error.h"
#include "spec/cuda_source.h"
#include "spec/spec_checker.h"
#include "transforms/generic_transform.h"
#include "transforms/source_transforms.h"

namespace gputune {
namespace {

const char* const kReservedNames[] = {
    "sin",   "cos",   "tan",  "asin",  "acos", "atan", "sinh",  "cosh",  "tanh", "asinh",
    "acosh", "atanh", "log2", "log10", "log",  "ln",   "exp",   "sqrt",  "sign", "rint",
    "abs",   "sum",   "avg",  "min",   "max",  "ceil", "floor", "round", "_pi",  "_e"};

bool same_value(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return a.as_number() == b.as_number();
  return a == b;
}

}  // namespace

void SpecChecker::check_expression(const ExprText& expr, Visible visible, const std::string& what,
                                   size_t problem_count, bool from_override) const {
  std::vector<std::string> names;
  if (visible == Visible::kEarlierProblem) {
    names.assign(problem_names_.begin(), problem_names_.begin() + problem_count);
  } else {
    names = problem_names_;
  }
  if (visible == Visible::kProblemAndParameters) {
    names.insert(names.end(), numeric_dimensions_.begin(), numeric_dimensions_.end());
  }
  Scope scope;
  for (const auto& name : names) scope.set(name, 1.0);
  try {
    Expression parsed(expr.text, scope);
  } catch (const ExpressionError& e) {
    SourceLocation at = expr.where;
    if (!from_override) at.column += column_shift(at) + e.offset;
    const std::string source = from_override ? " (from --set)" : "";
    const std::string prefix = "undefined name '";
    if (e.message.rfind(prefix, 0) == 0) {
      const std::string name =
          e.message.substr(prefix.size(), e.message.size() - prefix.size() - 1);
      std::string why;
      if (contains(symbol_dimensions_, name)) {
        why = "'" + name + "' has non-numeric values, so expressions cannot read it";
      } else if (contains(numeric_dimensions_, name) && visible != Visible::kProblemAndParameters) {
        why = "'" + name + "' is a parameter; " + what + " may use problem values only";
      } else if (contains(problem_names_, name) && visible == Visible::kEarlierProblem) {
        why = "'" + name + "' is defined later; a problem value may use earlier ones only";
      } else {
        why = "undefined name '" + name + "' in " + what + source + suggestion(name, names);
      }
      fail(at, why + "; expected one of: " + (names.empty() ? "(no names)" : join(names)));
    }
    fail(at, "cannot parse " + what + source + " '" + expr.text + "': " + e.message);
  }
}

void SpecChecker::define_name(const std::string& name, const SourceLocation& where,
                              const std::string& kind, bool identifier) {
  if (identifier && !is_identifier(name)) {
    fail(where, kind + " name '" + name +
                    "' is not an identifier; expected letters, digits and '_', not starting "
                    "with a digit");
  }
  for (const char* reserved : kReservedNames) {
    if (name == reserved) {
      fail(where, kind + " name '" + name + "' is the name of a function; expected another name");
    }
  }
  for (const auto& [defined, first] : defined_) {
    if (defined == name) {
      fail(where, "'" + name + "' is already defined" +
                      (first.line > 0 ? " at " + first.str() : std::string()) +
                      "; expected names unique across problem, parameters and transforms");
    }
  }
  defined_.push_back({name, where});
}

// A kernel name or name expression, checked against the source's __global__ functions.
void SpecChecker::check_kernel_name(const ExprText& kernel_name) const {
  const std::string& text = kernel_name.text;
  const size_t angle = text.find('<');
  const std::string base = trim(text.substr(0, angle));
  if (angle != std::string::npos && trim(text).back() != '>') {
    fail(kernel_name.where,
         "kernel name '" + text + "' has an unclosed '<'; expected name<ARG, ...>");
  }
  std::string last = base;
  if (const size_t colons = base.rfind("::"); colons != std::string::npos) {
    last = base.substr(colons + 2);
  }
  if (!is_identifier(last)) {
    fail(kernel_name.where, "kernel name '" + text +
                                "' does not start with an identifier; expected a name "
                                "such as transpose or transpose<TILE>");
  }
  if (!contains(kernel_globals_, last)) {
    const std::string source = !context_.kernel_source_as_written.empty()
                                   ? context_.kernel_source_as_written
                               : !spec_.kernel_path.empty() ? spec_.kernel_path
                                                            : std::string("the kernel source");
    fail(kernel_name.where, "kernel '" + last + "' is not a __global__ function of " + source +
                                suggestion(last, kernel_globals_) + "; expected one of: " +
                                (kernel_globals_.empty() ? "(none found)" : join(kernel_globals_)));
  }
}

namespace {

// The name the launches spell out when the spec's kernel has none: "a + b".
std::string launches_kernel_name(const std::vector<LaunchSpec>& launches) {
  std::vector<std::string> names;
  for (const LaunchSpec& launch : launches) {
    const std::string& name = launch.kernel_name.text;
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : " + ") + name;
  return out;
}

}  // namespace

void SpecChecker::check_kernel() {
  std::set<std::string> seen{spec_.kernel_path};
  const std::string headers = quoted_includes(
      spec_.kernel_source, std::filesystem::path(spec_.kernel_path).parent_path().string(), &seen);
  spec_.headers_hash = stable_hash(headers);
  kernel_globals_ = global_functions(spec_.kernel_source + "\n" + headers);
  kernel_constants_ = constant_symbols(spec_.kernel_source + "\n" + headers);
  // A multi-launch spec's own name, composed by an earlier check, names no single function.
  const bool composed = spec_.kernel_name.text.find(" + ") != std::string::npos &&
                        spec_.kernel_name.text == launches_kernel_name(spec_.launches);
  if (!spec_.kernel_name.text.empty() && !composed) check_kernel_name(spec_.kernel_name);
}

void SpecChecker::check_problem() {
  for (const auto& [name, expr] : spec_.problem) {
    define_name(name, at("problem/" + name, expr.where), "problem value");
    problem_names_.push_back(name);
  }
  for (size_t i = 0; i < spec_.problem.size(); ++i) {
    const auto& [name, expr] = spec_.problem[i];
    check_expression(expr, Visible::kEarlierProblem, "problem value '" + name + "'", i,
                     context_.overridden.count(name) != 0);
  }
}

void SpecChecker::check_parameters(bool transforms) {
  for (ParameterSpec& parameter : transforms ? spec_.transforms : spec_.parameters) {
    parameter.is_transform = transforms;
    const GenericTransform* transform = nullptr;
    const SourceTransform* source = nullptr;
    if (transforms) {
      if (const std::string why = reject_transform_name(parameter.name); !why.empty()) {
        fail(parameter.where, why);
      }
      transform = find_generic_transform(parameter.name);
      source = find_source_transform(parameter.name);
    }
    // "unroll(k_loop)" is no identifier: expressions cannot read it, and need not.
    const bool targeted = source && parse_transform_name(parameter.name).has_target;
    define_name(parameter.name, parameter.where, transforms ? "transform" : "parameter", !targeted);
    const std::string what = (transforms ? "transform '" : "parameter '") + parameter.name + "'";
    const std::string values_key = "values/" + parameter.name;
    if (parameter.values.empty()) {
      fail(at(values_key, parameter.where), what +
                                                " must be a non-empty list of values, got an "
                                                "empty list; expected e.g. [16, 32, 64]");
    }
    bool numeric = true;
    for (size_t i = 0; i < parameter.values.size(); ++i) {
      const Value& value = parameter.values[i];
      const SourceLocation where = at(values_key + "/" + std::to_string(i), parameter.where);
      if (std::find(parameter.values.begin(), parameter.values.begin() + i, value) !=
          parameter.values.begin() + i) {
        fail(where, what + " lists " + value.text() + " twice; expected each value once");
      }
      if (transform) {
        const std::string why = transform->reject(value);
        if (!why.empty()) fail(where, why);
      }
      if (source) {
        const std::string why = source->reject(parameter.name, value);
        if (!why.empty()) fail(where, why);
      }
      numeric = numeric && value.is_number();
    }
    if (!targeted) (numeric ? numeric_dimensions_ : symbol_dimensions_).push_back(parameter.name);
  }
}

void SpecChecker::check_defines() const {
  std::vector<std::string> seen;
  for (const auto& [name, expr] : spec_.defines) {
    const SourceLocation where = at("defines/" + name, expr.where);
    if (!is_identifier(name)) {
      fail(where, "define name '" + name +
                      "' is not an identifier; expected a macro name of letters, digits and '_'");
    }
    if (contains(seen, name)) fail(where, "define '" + name + "' is given twice; expected once");
    seen.push_back(name);
    for (const auto* list : {&spec_.parameters, &spec_.transforms}) {
      for (const ParameterSpec& parameter : *list) {
        if (parameter.name != name) continue;
        const std::string kind = parameter.is_transform ? "transform" : "parameter";
        fail(where, "define '" + name + "' has the name of a " + kind +
                        (parameter.is_transform || !spec_.parameters_as_macros
                             ? ""
                             : ", which already becomes -D" + name + "=<its value>") +
                        "; expected another macro name");
      }
    }
    for (const std::string& option : spec_.compile_options) {
      if (option == "-D" + name || option.rfind("-D" + name + "=", 0) == 0) {
        fail(where, "define '" + name + "' is also given as kernel option '" + option +
                        "'; expected one of them");
      }
    }
    check_expression(expr, Visible::kProblemAndParameters, "define '" + name + "'");
  }
}

void SpecChecker::check_launch_geometry(const LaunchSpec& launch, const std::string& context,
                                        Visible visible) const {
  for (const bool block : {true, false}) {
    const std::vector<ExprText>& dims = block ? launch.block : launch.grid;
    const std::string key = block ? "block" : "grid";
    const std::string what = context + " " + key;
    if (dims.empty()) {
      fail(launch.where,
           context + " has no '" + key + "'; expected " + key + ": [x] or [x, y] or [x, y, z]");
    }
    if (dims.size() > 3) {
      fail(launch.where, what + " must be a list of 1 to 3 expressions, got " +
                             std::to_string(dims.size()) +
                             " items; expected [x], [x, y] or [x, y, z]");
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      check_expression(dims[i], visible, what + "[" + std::to_string(i) + "]");
    }
  }
  if (launch.dynamic_shared_bytes) {
    check_expression(*launch.dynamic_shared_bytes, visible, context + " shared_bytes");
  }
}

void SpecChecker::check_launches() {
  if (spec_.launches.empty()) {
    fail(spec_.launches_where,
         "the spec has no launch; expected launch: {block, grid} or a list under launches:");
  }
  const bool numbered = context_.numbered_launches || spec_.launches.size() > 1;
  std::vector<bool> used(spec_.arguments.size(), false);
  for (size_t l = 0; l < spec_.launches.size(); ++l) {
    LaunchSpec& launch = spec_.launches[l];
    const std::string context = numbered ? "launch " + std::to_string(l + 1) : "launch";
    if (launch.kernel_name.text.empty()) {
      if (spec_.kernel_name.text.empty()) {
        fail(launch.where, context +
                               " has no 'kernel' and the spec's kernel has no name; expected "
                               "kernel: <function name or name expression>");
      }
      launch.kernel_name = spec_.kernel_name;
    } else if (launch.kernel_name.text != spec_.kernel_name.text) {
      check_kernel_name(launch.kernel_name);
    }
    for (size_t a : launch.arguments) {
      if (a >= spec_.arguments.size()) {
        fail(launch.where, context + " passes argument " + std::to_string(a) +
                               ", but the spec has " + std::to_string(spec_.arguments.size()) +
                               "; expected indices into the arguments");
      }
      used[a] = true;
    }
    if (launch.when) {
      check_expression(*launch.when, Visible::kProblemAndParameters, context + " when");
    }
    check_launch_geometry(launch, context);
  }
  for (size_t a = 0; a < used.size(); ++a) {
    if (!used[a] && !spec_.arguments[a].constant) {
      fail(spec_.arguments[a].where, "argument '" + spec_.arguments[a].name +
                                         "' is passed to no launch; expected every argument "
                                         "in some launch's arguments");
    }
  }
  if (spec_.kernel_name.text.empty()) {
    spec_.kernel_name.text = launches_kernel_name(spec_.launches);
    spec_.kernel_name.where = spec_.launches_where;
  }
}

void SpecChecker::check_constraints() const {
  for (size_t i = 0; i < spec_.constraints.size(); ++i) {
    check_expression(spec_.constraints[i], Visible::kProblemAndParameters,
                     "constraint " + std::to_string(i + 1));
  }
}

namespace {

// Where the baseline names no value: an engine knob's neutral value where it lists it (the
// baseline is then the kernel as written), the first value otherwise.
Value default_baseline(const ParameterSpec& parameter) {
  const SourceTransform* source =
      parameter.is_transform ? find_source_transform(parameter.name) : nullptr;
  if (source) {
    for (const Value& value : parameter.values) {
      if (is_neutral(*source, value)) return value;
    }
  }
  return parameter.values.front();
}

}  // namespace

void SpecChecker::check_baseline() {
  std::vector<const ParameterSpec*> all;
  for (const auto& p : spec_.parameters) all.push_back(&p);
  for (const auto& p : spec_.transforms) all.push_back(&p);
  std::vector<std::string> names;
  for (const auto* p : all) names.push_back(p->name);
  std::vector<std::pair<std::string, Value>> given;
  for (size_t i = 0; i < spec_.baseline.size(); ++i) {
    const auto& [name, value] = spec_.baseline[i];
    const std::string key = "baseline/" + std::to_string(i) + "/";
    const SourceLocation name_where = at(key + "name", spec_.baseline_where);
    auto p = std::find_if(all.begin(), all.end(),
                          [&](const ParameterSpec* q) { return q->name == name; });
    if (p == all.end()) {
      fail(name_where, "baseline names '" + name + "', which is not a parameter or transform" +
                           suggestion(name, names) + "; expected one of: " +
                           (names.empty() ? "(none defined)" : join(names)));
    }
    for (const auto& entry : given) {
      if (entry.first == name) {
        fail(name_where, "duplicate key '" + name + "' in baseline; expected each key once");
      }
    }
    auto match = std::find_if((*p)->values.begin(), (*p)->values.end(),
                              [&](const Value& v) { return same_value(v, value); });
    if (match == (*p)->values.end()) {
      std::vector<std::string> texts;
      for (const auto& v : (*p)->values) texts.push_back(v.text());
      fail(at(key + "value", spec_.baseline_where),
           "baseline " + name + " = " + value.text() +
               " is not among its values; expected one of: " + join(texts));
    }
    given.push_back({name, *match});
  }
  spec_.baseline.clear();
  for (const auto* p : all) {
    auto it = std::find_if(given.begin(), given.end(),
                           [&](const auto& entry) { return entry.first == p->name; });
    spec_.baseline.push_back({p->name, it != given.end() ? it->second : default_baseline(*p)});
  }
}

void SpecChecker::check_tolerances() const {
  if (spec_.rtol < 0) {
    fail(at("check/rtol", {}), "check rtol is negative; expected a tolerance >= 0");
  }
  if (spec_.atol < 0) {
    fail(at("check/atol", {}), "check atol is negative; expected a tolerance >= 0");
  }
}

void SpecChecker::check_metrics() const {
  if (spec_.bytes) {
    check_expression(*spec_.bytes, Visible::kProblemAndParameters, "metrics bytes");
  }
  if (spec_.flops) {
    check_expression(*spec_.flops, Visible::kProblemAndParameters, "metrics flops");
  }
}

void SpecChecker::check_search() const {
  const SearchSettings& search = spec_.search;
  if (!is_identifier(search.strategy)) {
    fail(at("search/strategy", {}), "search strategy '" + search.strategy +
                                        "' is not a name; expected e.g. brute_force or random");
  }
  if (search.budget_evaluations < 0 || search.budget_seconds < 0) {
    fail({}, "search budget is negative; expected a positive count or time, or 0 for no limit");
  }
}

void SpecChecker::check_remedies() const {
  std::vector<std::string> names;
  std::vector<std::string> symbolic;  // a direction means nothing for these
  for (const auto* list : {&spec_.parameters, &spec_.transforms}) {
    for (const auto& p : *list) {
      names.push_back(p.name);
      const bool numbers = std::all_of(p.values.begin(), p.values.end(),
                                       [](const Value& v) { return v.is_number(); });
      if (!numbers) symbolic.push_back(p.name);
    }
  }
  for (const auto& [remedy, parameters] : spec_.remedies) {
    const SourceLocation where = at("remedies/" + remedy, spec_.remedies_where);
    if (!parse_remedy(remedy)) {
      fail(where, "unknown remedy '" + remedy + "' under remedies" +
                      suggestion(remedy, remedy_names()) +
                      "; expected one of: " + join(remedy_names()));
    }
    for (const auto& annotated : parameters) {
      const RemedyKnob knob = parse_remedy_knob(annotated);
      const std::string& name = knob.name;
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        fail(where, "remedy '" + remedy + "' names '" + name +
                        "', which is not a parameter or transform" + suggestion(name, names) +
                        "; expected one of: " + (names.empty() ? "(none defined)" : join(names)));
      }
      if (knob.direction != KnobDirection::kEither &&
          std::find(symbolic.begin(), symbolic.end(), name) != symbolic.end()) {
        fail(where, "remedy '" + remedy + "' names '" + annotated + "', but '" + name +
                        "' has values that are not numbers, so it has no larger or smaller; "
                        "write '" +
                        name + "' (a change either way)");
      }
    }
  }
}

void check_spec(Spec& spec, const SpecCheckContext& context) { SpecChecker(spec, context).run(); }

void check_spec(Spec& spec) { check_spec(spec, SpecCheckContext{}); }

}  // namespace gputune
