#include "spec/spec_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "core/expression.h"
#include "core/hash.h"
#include "gputune/error.h"
#include "transforms/block_order.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

const char* const kReservedNames[] = {
    "sin",   "cos",   "tan",  "asin",  "acos", "atan", "sinh",  "cosh",  "tanh", "asinh",
    "acosh", "atanh", "log2", "log10", "log",  "ln",   "exp",   "sqrt",  "sign", "rint",
    "abs",   "sum",   "avg",  "min",   "max",  "ceil", "floor", "round", "_pi",  "_e"};

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// " (did you mean 'x'?)" when a known word is close enough to be the intended one.
std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& candidate : known) {
    const size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  if (best.empty() || best_distance > limit) return "";
  return " (did you mean '" + best + "'?)";
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

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

// Names of every __global__ function in a source, found textually: the identifier before the
// first '(' after __global__ that is not an attribute such as __launch_bounds__(...).
std::vector<std::string> global_functions(const std::string& source) {
  std::vector<std::string> names;
  const std::string marker = "__global__";
  size_t pos = 0;
  while ((pos = source.find(marker, pos)) != std::string::npos) {
    pos += marker.size();
    size_t i = pos;
    while (i < source.size()) {
      const size_t next = source.find_first_of("(;{", i);
      if (next == std::string::npos || source[next] != '(') break;
      size_t end = next;
      while (end > i && std::isspace(static_cast<unsigned char>(source[end - 1]))) --end;
      size_t begin = end;
      while (begin > i && (std::isalnum(static_cast<unsigned char>(source[begin - 1])) ||
                           source[begin - 1] == '_')) {
        --begin;
      }
      const std::string name = source.substr(begin, end - begin);
      if (name.rfind("__", 0) == 0) {  // an attribute with arguments: skip its parentheses
        int depth = 0;
        size_t j = next;
        for (; j < source.size(); ++j) {
          if (source[j] == '(') ++depth;
          if (source[j] == ')' && --depth == 0) break;
        }
        i = j + 1;
        continue;
      }
      if (!name.empty()) names.push_back(name);
      break;
    }
  }
  return names;
}

// The text of the headers a source includes with quotes, recursively, where they are
// found beside the file that includes them (as NVRTC finds them with --include-path): a kernel
// file may launch kernels that a header it includes defines.
std::string local_includes(const std::string& source, const fs::path& folder,
                           std::set<std::string>* seen) {
  std::string out;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line[hash] != '#') continue;
    const size_t include = line.find("include", hash);
    const size_t open = line.find('"', hash);
    const size_t close = open == std::string::npos ? open : line.find('"', open + 1);
    if (include == std::string::npos || close == std::string::npos || include > open) continue;
    const fs::path header = (folder / line.substr(open + 1, close - open - 1)).lexically_normal();
    if (!seen->insert(header.string()).second) continue;
    std::ifstream in(header, std::ios::binary);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    out += "\n" + text.str() + local_includes(text.str(), header.parent_path(), seen);
  }
  return out;
}

struct NumberOrSymbol {
  bool ok = false;
  Value value;
};

class Loader {
 public:
  Loader(const std::string& text, const std::string& path, const Overrides& overrides)
      : path_(path), text_(text), overrides_(overrides) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
  }

  Spec load();

 private:
  // Location helpers.
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

  // Expression checking against the names visible to it.
  enum class Visible { kEarlierProblem, kProblem, kProblemAndParameters };
  void check_expression(const ExprText& expr, Visible visible, const std::string& what,
                        size_t problem_count = 0, bool from_override = false) const;
  int column_shift(const SourceLocation& at) const;

  void define_name(const std::string& name, const YAML::Node& node, const std::string& kind);

  void read_kernel(const YAML::Node& node, bool multi_launch, Spec* spec);
  ExprText kernel_name_of(const YAML::Node& name, const Spec& spec,
                          const std::string& source) const;
  void read_problem(const YAML::Node& node, Spec* spec);
  void read_parameters(const YAML::Node& node, bool transforms, Spec* spec);
  void read_arguments(const YAML::Node& node, Spec* spec);
  void read_launch(const YAML::Node& node, Spec* spec);
  void read_launches(const YAML::Node& node, Spec* spec);
  void read_launch_geometry(const YAML::Node& node, const std::string& context, LaunchSpec* launch);
  void read_constraints(const YAML::Node& node, Spec* spec);
  void read_baseline(const YAML::Node& node, Spec* spec);
  void read_check(const YAML::Node& node, Spec* spec);
  void read_metrics(const YAML::Node& node, Spec* spec);
  void read_search(const YAML::Node& node, Spec* spec);

  std::string path_;
  std::string text_;
  Overrides overrides_;
  std::vector<std::string> lines_;
  std::vector<std::string> problem_names_;
  std::set<std::string> overridden_;
  std::vector<std::string> numeric_dimensions_;
  std::vector<std::string> symbol_dimensions_;
  std::vector<std::pair<std::string, SourceLocation>> defined_;
  std::string kernel_source_text_;           // the kernel source as the spec names it
  std::vector<std::string> kernel_globals_;  // its __global__ functions, headers included
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

int Loader::column_shift(const SourceLocation& at) const {
  if (at.line < 1 || at.line > static_cast<int>(lines_.size())) return 0;
  const std::string& line = lines_[at.line - 1];
  if (at.column < 1 || at.column > static_cast<int>(line.size())) return 0;
  const char c = line[at.column - 1];
  return c == '"' || c == '\'' ? 1 : 0;
}

void Loader::check_expression(const ExprText& expr, Visible visible, const std::string& what,
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
      const bool is_dimension = std::find(numeric_dimensions_.begin(), numeric_dimensions_.end(),
                                          name) != numeric_dimensions_.end();
      const bool is_symbol = std::find(symbol_dimensions_.begin(), symbol_dimensions_.end(),
                                       name) != symbol_dimensions_.end();
      const bool is_problem =
          std::find(problem_names_.begin(), problem_names_.end(), name) != problem_names_.end();
      if (is_symbol) {
        why = "'" + name + "' has non-numeric values, so expressions cannot read it";
      } else if (is_dimension && visible != Visible::kProblemAndParameters) {
        why = "'" + name + "' is a parameter; " + what + " may use problem values only";
      } else if (is_problem && visible == Visible::kEarlierProblem) {
        why = "'" + name + "' is defined later; a problem value may use earlier ones only";
      } else {
        why = "undefined name '" + name + "' in " + what + source + suggestion(name, names);
      }
      fail(at, why + "; expected one of: " + (names.empty() ? "(no names)" : join(names)));
    }
    fail(at, "cannot parse " + what + source + " '" + expr.text + "': " + e.message);
  }
}

void Loader::define_name(const std::string& name, const YAML::Node& node, const std::string& kind) {
  if (!is_identifier(name)) {
    fail(node, kind + " name '" + name +
                   "' is not an identifier; expected letters, digits and '_', not starting with "
                   "a digit");
  }
  for (const char* reserved : kReservedNames) {
    if (name == reserved) {
      fail(node, kind + " name '" + name + "' is the name of a function; expected another name");
    }
  }
  for (const auto& [defined, at] : defined_) {
    if (defined == name) {
      fail(node, "'" + name + "' is already defined at " + at.str() +
                     "; expected names unique across problem, parameters and transforms");
    }
  }
  defined_.push_back({name, where(node)});
}

// A kernel name or name expression, checked against the source's __global__ functions.
ExprText Loader::kernel_name_of(const YAML::Node& name, const Spec& spec,
                                const std::string& source) const {
  ExprText kernel_name{string_of(name, "kernel name"), where(name)};
  const std::string& text = kernel_name.text;
  const size_t angle = text.find('<');
  const std::string base = trim(text.substr(0, angle));
  if (angle != std::string::npos && trim(text).back() != '>') {
    fail(name, "kernel name '" + text + "' has an unclosed '<'; expected name<ARG, ...>");
  }
  std::string last = base;
  if (const size_t colons = base.rfind("::"); colons != std::string::npos) {
    last = base.substr(colons + 2);
  }
  if (!is_identifier(last)) {
    fail(name, "kernel name '" + text +
                   "' does not start with an identifier; expected a name "
                   "such as transpose or transpose<TILE>");
  }
  const std::vector<std::string>& globals = kernel_globals_;
  if (std::find(globals.begin(), globals.end(), last) == globals.end()) {
    fail(name, "kernel '" + last + "' is not a __global__ function of " + source +
                   suggestion(last, globals) +
                   "; expected one of: " + (globals.empty() ? "(none found)" : join(globals)));
  }
  return kernel_name;
}

void Loader::read_kernel(const YAML::Node& node, bool multi_launch, Spec* spec) {
  require_map(node, "kernel");
  check_keys(node, {"source", "name", "options", "macros"}, "kernel");
  const YAML::Node source = node["source"];
  if (!source) fail(node, "kernel has no 'source'; expected the path of a .cu file");
  const YAML::Node name = node["name"];
  if (!name && !multi_launch) {
    fail(node, "kernel has no 'name'; expected the kernel's function name");
  }

  const std::string relative = string_of(source, "kernel source");
  fs::path kernel_path(relative);
  if (kernel_path.is_relative()) kernel_path = fs::path(path_).parent_path() / kernel_path;
  spec->kernel_path = kernel_path.lexically_normal().string();
  std::ifstream in(spec->kernel_path, std::ios::binary);
  if (!in) {
    fail(source, "cannot read kernel source '" + relative + "' (looked for " + spec->kernel_path +
                     "); expected a path relative to the spec file");
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  spec->kernel_source = contents.str();

  kernel_source_text_ = relative;
  std::set<std::string> seen{spec->kernel_path};
  const std::string headers =
      local_includes(spec->kernel_source, fs::path(spec->kernel_path).parent_path(), &seen);
  spec->headers_hash = stable_hash(headers);
  kernel_globals_ = global_functions(spec->kernel_source + "\n" + headers);
  if (name) spec->kernel_name = kernel_name_of(name, *spec, relative);

  if (const YAML::Node options = node["options"]) {
    require_list(options, "kernel options");
    for (const auto& option : options) {
      spec->compile_options.push_back(string_of(option, "a kernel option"));
    }
  }
  if (const YAML::Node macros = node["macros"]) {
    spec->parameters_as_macros = boolean_of(macros, "kernel macros");
  }
}

void Loader::read_problem(const YAML::Node& node, Spec* spec) {
  if (node && !node.IsNull()) {
    require_map(node, "problem");
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = string_of(it->first, "a problem value name");
      define_name(name, it->first, "problem value");
      spec->problem.push_back({name, expression_of(it->second, "problem value '" + name + "'")});
      problem_names_.push_back(name);
    }
  }
  for (const auto& [name, text] : overrides_) {
    auto it = std::find_if(spec->problem.begin(), spec->problem.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it == spec->problem.end()) {
      throw Error(ErrorCode::kUsage,
                  path_ + ": --set " + name + "=" + text + ": '" + name +
                      "' is not a problem value" + suggestion(name, problem_names_) +
                      "; expected one of: " +
                      (problem_names_.empty() ? "(the spec has none)" : join(problem_names_)));
    }
    if (trim(text).empty()) {
      throw Error(ErrorCode::kUsage, path_ + ": --set " + name +
                                         "= has no value; expected "
                                         "name=number or name=expression");
    }
    it->second.text = text;
    overridden_.insert(name);
  }
  for (size_t i = 0; i < spec->problem.size(); ++i) {
    check_expression(spec->problem[i].second, Visible::kEarlierProblem,
                     "problem value '" + spec->problem[i].first + "'", i,
                     overridden_.count(spec->problem[i].first) != 0);
  }
}

void Loader::read_parameters(const YAML::Node& node, bool transforms, Spec* spec) {
  if (!node || node.IsNull()) return;
  const std::string section = transforms ? "transforms" : "parameters";
  require_map(node, section);
  const std::vector<std::string> known = {"block_order", "max_registers", "fast_math"};
  if (transforms) check_keys(node, known, "transforms");
  for (auto it = node.begin(); it != node.end(); ++it) {
    ParameterSpec parameter;
    parameter.name = string_of(it->first, "a parameter name");
    parameter.where = where(it->first);
    parameter.is_transform = transforms;
    define_name(parameter.name, it->first, transforms ? "transform" : "parameter");
    const std::string what = (transforms ? "transform '" : "parameter '") + parameter.name + "'";
    const YAML::Node values = it->second;
    if (!values.IsSequence() || values.size() == 0) {
      fail(values.IsNull() ? it->first : values,
           what + " must be a non-empty list of values, got " +
               (values.IsSequence() ? std::string("an empty list") : kind_of(values)) +
               "; expected e.g. [16, 32, 64]");
    }
    bool numeric = true;
    for (const auto& item : values) {
      Value value = value_of(item, "a value of " + what);
      if (std::find(parameter.values.begin(), parameter.values.end(), value) !=
          parameter.values.end()) {
        fail(item, what + " lists " + value.text() + " twice; expected each value once");
      }
      if (parameter.name == "block_order") {
        if (value.is_number() || !is_block_order(value.as_symbol())) {
          fail(item, "unknown block order '" + value.text() +
                         "'; expected row, column, diagonal or swizzleN with N in 2..64");
        }
      } else if (parameter.name == "max_registers") {
        if (!value.is_integer() || value.as_number() < 0 || value.as_number() > 255) {
          fail(item, "max_registers value " + value.text() +
                         " is not an integer in 0..255; expected 0 (no cap) or a register count");
        }
      } else if (parameter.name == "fast_math") {
        if (!value.is_integer() || (value.as_number() != 0 && value.as_number() != 1)) {
          fail(item, "fast_math value " + value.text() + " is not 0 or 1; expected a boolean");
        }
      }
      numeric = numeric && value.is_number();
      parameter.values.push_back(std::move(value));
    }
    (numeric ? numeric_dimensions_ : symbol_dimensions_).push_back(parameter.name);
    (transforms ? spec->transforms : spec->parameters).push_back(std::move(parameter));
  }
}

void Loader::read_arguments(const YAML::Node& node, Spec* spec) {
  require_list(node, "arguments");
  if (node.size() == 0) fail(node, "arguments is empty; expected the kernel's arguments in order");
  std::set<std::string> names;
  bool has_output = false;
  for (const auto& item : node) {
    require_map(item, "an argument");
    check_keys(item,
               {"name", "type", "count", "value", "output", "scratch", "fill", "fill_value", "seed",
                "range"},
               "an argument");
    ArgumentSpec arg;
    arg.where = where(item);
    const YAML::Node name = item["name"];
    if (!name) fail(item, "an argument has no 'name'; expected name: <identifier>");
    arg.name = string_of(name, "an argument name");
    if (!is_identifier(arg.name)) {
      fail(name, "argument name '" + arg.name +
                     "' is not an identifier; expected letters, "
                     "digits and '_'");
    }
    if (!names.insert(arg.name).second) {
      fail(name, "argument '" + arg.name + "' is listed twice; expected unique argument names");
    }
    const std::string what = "argument '" + arg.name + "'";
    const YAML::Node type = item["type"];
    if (!type)
      fail(item, what + " has no 'type'; expected one of int8 .. uint64, float32, float64");
    const std::string type_text = string_of(type, what + " type");
    if (!parse_type(type_text, &arg.type)) {
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
    arg.is_buffer = static_cast<bool>(count);
    if (arg.is_buffer) {
      arg.count = expression_of(count, what + " count");
      check_expression(arg.count, Visible::kProblem, what + " count");
    } else {
      arg.value = expression_of(value, what + " value");
      check_expression(arg.value, Visible::kProblemAndParameters, what + " value");
    }
    if (const YAML::Node output = item["output"]) {
      arg.output = boolean_of(output, what + " output");
      if (arg.output && !arg.is_buffer) {
        fail(output, what + " is a scalar and cannot be an output; expected count for a buffer");
      }
    }
    has_output = has_output || arg.output;
    if (const YAML::Node scratch = item["scratch"]) {
      arg.scratch = boolean_of(scratch, what + " scratch");
      if (arg.scratch && !arg.is_buffer) {
        fail(scratch, what + " is a scalar and cannot be scratch; expected count for a buffer");
      }
      if (arg.scratch && arg.output) {
        fail(scratch, what +
                          " is both an output and scratch; expected one of them: outputs "
                          "are checked, scratch buffers only pass data between launches");
      }
    }

    const YAML::Node fill = item["fill"], fill_value = item["fill_value"], seed = item["seed"],
                     range = item["range"];
    for (const auto& [key, present] : std::initializer_list<std::pair<const char*, YAML::Node>>{
             {"fill", fill}, {"fill_value", fill_value}, {"seed", seed}, {"range", range}}) {
      if (!present) continue;
      if (!arg.is_buffer) {
        fail(key_node(item, key),
             what + " is a scalar; '" + key + "' applies to input buffers only");
      }
      if (arg.output || arg.scratch) {
        fail(key_node(item, key), what + " is " + (arg.output ? "an output" : "scratch") +
                                      ", which gets no fill; '" + key +
                                      "' applies to input buffers only");
      }
    }
    if (fill) {
      const std::string fill_text = string_of(fill, what + " fill");
      if (fill_text == "random") {
        arg.fill = Fill::kRandom;
      } else if (fill_text == "constant") {
        arg.fill = Fill::kConstant;
      } else if (fill_text == "iota") {
        arg.fill = Fill::kIota;
      } else if (fill_text == "zeros") {
        arg.fill = Fill::kZeros;
      } else {
        fail(fill, "unknown fill '" + fill_text + "' for " + what +
                       suggestion(fill_text, {"random", "constant", "iota", "zeros"}) +
                       "; expected random, constant, iota or zeros");
      }
    }
    if (fill_value) {
      if (arg.fill != Fill::kConstant) {
        fail(key_node(item, "fill_value"),
             what + " has fill_value without fill: constant; expected fill: constant with it");
      }
      arg.fill_value = number_of(fill_value, what + " fill_value");
    } else if (arg.fill == Fill::kConstant) {
      fail(fill, what + " has fill: constant but no fill_value; expected fill_value: <number>");
    }
    if (seed) {
      if (arg.fill != Fill::kRandom) {
        fail(key_node(item, "seed"), what +
                                         " has a seed but its fill is not random; expected "
                                         "seed only with fill: random");
      }
      const int64_t s = integer_of(seed, what + " seed");
      if (s < 0) fail(seed, what + " seed is negative; expected a non-negative integer");
      arg.seed = static_cast<uint64_t>(s);
    }
    if (range) {
      if (arg.fill != Fill::kRandom) {
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
      arg.fill_low = number_of(range[0], what + " range low");
      arg.fill_high = number_of(range[1], what + " range high");
      if (!(arg.fill_low < arg.fill_high)) {
        fail(range, what + " range is empty; expected [low, high] with low < high");
      }
    }
    spec->arguments.push_back(std::move(arg));
  }
  if (!has_output) {
    fail(node, "no argument is an output; expected at least one buffer with output: true");
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
    for (size_t i = 0; i < out.size(); ++i) {
      check_expression(out[i], Visible::kProblemAndParameters,
                       what + "[" + std::to_string(i) + "]");
    }
  }
  if (const YAML::Node shared = node["shared_bytes"]) {
    launch->dynamic_shared_bytes = expression_of(shared, context + " shared_bytes");
    check_expression(*launch->dynamic_shared_bytes, Visible::kProblemAndParameters,
                     context + " shared_bytes");
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
  std::vector<std::string> argument_names;
  for (const ArgumentSpec& argument : spec->arguments) argument_names.push_back(argument.name);
  std::vector<bool> used(spec->arguments.size(), false);
  std::vector<std::string> kernel_names;
  for (size_t l = 0; l < node.size(); ++l) {
    const YAML::Node item = node[l];
    const std::string context = "launch " + std::to_string(l + 1);
    require_map(item, context);
    check_keys(item, {"kernel", "arguments", "block", "grid", "shared_bytes", "when"}, context);
    LaunchSpec launch;
    launch.where = where(item);
    if (const YAML::Node kernel = item["kernel"]) {
      launch.kernel_name = kernel_name_of(kernel, *spec, kernel_source_text_);
    } else if (!spec->kernel_name.text.empty()) {
      launch.kernel_name = spec->kernel_name;
    } else {
      fail(item, context +
                     " has no 'kernel' and the spec's kernel has no name; expected "
                     "kernel: <function name or name expression>");
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
    for (size_t a : launch.arguments) used[a] = true;
    if (const YAML::Node when = item["when"]) {
      launch.when = expression_of(when, context + " when");
      check_expression(*launch.when, Visible::kProblemAndParameters, context + " when");
    }
    read_launch_geometry(item, context, &launch);
    if (std::find(kernel_names.begin(), kernel_names.end(), launch.kernel_name.text) ==
        kernel_names.end()) {
      kernel_names.push_back(launch.kernel_name.text);
    }
    spec->launches.push_back(std::move(launch));
  }
  for (size_t a = 0; a < used.size(); ++a) {
    if (!used[a]) {
      fail(spec->arguments[a].where, "argument '" + spec->arguments[a].name +
                                         "' is passed to no launch; expected every argument "
                                         "in some launch's arguments");
    }
  }
  if (spec->kernel_name.text.empty()) {
    spec->kernel_name.text = kernel_names.front();
    for (size_t k = 1; k < kernel_names.size(); ++k)
      spec->kernel_name.text += " + " + kernel_names[k];
    spec->kernel_name.where = where(node);
  }
}

void Loader::read_constraints(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_list(node, "constraints");
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string what = "constraint " + std::to_string(i + 1);
    spec->constraints.push_back(expression_of(node[i], what));
    check_expression(spec->constraints.back(), Visible::kProblemAndParameters, what);
  }
}

void Loader::read_baseline(const YAML::Node& node, Spec* spec) {
  std::vector<const ParameterSpec*> all;
  for (const auto& p : spec->parameters) all.push_back(&p);
  for (const auto& p : spec->transforms) all.push_back(&p);
  std::vector<std::string> names;
  for (const auto* p : all) names.push_back(p->name);
  std::vector<std::pair<std::string, Value>> given;
  if (node && !node.IsNull()) {
    require_map(node, "baseline");
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = string_of(it->first, "a baseline name");
      auto p = std::find_if(all.begin(), all.end(),
                            [&](const ParameterSpec* q) { return q->name == name; });
      if (p == all.end()) {
        fail(it->first, "baseline names '" + name + "', which is not a parameter or transform" +
                            suggestion(name, names) + "; expected one of: " +
                            (names.empty() ? "(none defined)" : join(names)));
      }
      if (!seen.insert(name).second) {
        fail(it->first, "duplicate key '" + name + "' in baseline; expected each key once");
      }
      const Value value = value_of(it->second, "baseline " + name);
      auto match = std::find_if((*p)->values.begin(), (*p)->values.end(), [&](const Value& v) {
        if (v.is_number() && value.is_number()) return v.as_number() == value.as_number();
        return v == value;
      });
      if (match == (*p)->values.end()) {
        std::vector<std::string> texts;
        for (const auto& v : (*p)->values) texts.push_back(v.text());
        fail(it->second, "baseline " + name + " = " + value.text() +
                             " is not among its values; expected one of: " + join(texts));
      }
      given.push_back({name, *match});
    }
  }
  for (const auto* p : all) {
    auto it = std::find_if(given.begin(), given.end(),
                           [&](const auto& entry) { return entry.first == p->name; });
    spec->baseline.push_back({p->name, it != given.end() ? it->second : p->values.front()});
  }
}

void Loader::read_check(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "check");
  check_keys(node, {"rtol", "atol"}, "check");
  if (const YAML::Node rtol = node["rtol"]) spec->rtol = number_of(rtol, "check rtol");
  if (const YAML::Node atol = node["atol"]) spec->atol = number_of(atol, "check atol");
  if (spec->rtol < 0) fail(node["rtol"], "check rtol is negative; expected a tolerance >= 0");
  if (spec->atol < 0) fail(node["atol"], "check atol is negative; expected a tolerance >= 0");
}

void Loader::read_metrics(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "metrics");
  check_keys(node, {"bytes", "flops"}, "metrics");
  if (const YAML::Node bytes = node["bytes"]) {
    spec->bytes = expression_of(bytes, "metrics bytes");
    check_expression(*spec->bytes, Visible::kProblemAndParameters, "metrics bytes");
  }
  if (const YAML::Node flops = node["flops"]) {
    spec->flops = expression_of(flops, "metrics flops");
    check_expression(*spec->flops, Visible::kProblemAndParameters, "metrics flops");
  }
}

void Loader::read_search(const YAML::Node& node, Spec* spec) {
  if (!node || node.IsNull()) return;
  require_map(node, "search");
  check_keys(node, {"strategy", "budget", "seed"}, "search");
  if (const YAML::Node strategy = node["strategy"]) {
    spec->search.strategy = string_of(strategy, "search strategy");
    if (!is_identifier(spec->search.strategy)) {
      fail(strategy, "search strategy '" + spec->search.strategy +
                         "' is not a name; expected e.g. brute_force or random");
    }
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
      "transforms",  "constraints", "baseline", "check",     "metrics", "search"};
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
  return spec;
}

}  // namespace

Spec parse_spec(const std::string& text, const std::string& path, const Overrides& overrides) {
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
