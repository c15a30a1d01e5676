// check_spec's checks of the arguments (types, fills, check regions, constant memory) and of the
// reference kernel (spec_checker.h).
#include <filesystem>
#include <string>

#include "core/expression.h"
#include "core/text.h"
#include "spec/cuda_source.h"
#include "spec/spec_checker.h"

namespace gputune {

void SpecChecker::check_arguments() {
  if (spec_.arguments.empty()) {
    fail(at("arguments", {}), "arguments is empty; expected the kernel's arguments in order");
  }
  std::set<std::string> names;
  bool has_output = false;
  for (size_t i = 0; i < spec_.arguments.size(); ++i) {
    const ArgumentSpec& arg = spec_.arguments[i];
    const std::string key = "arguments/" + std::to_string(i) + "/";
    if (!is_identifier(arg.name)) {
      fail(at(key + "name", arg.where), "argument name '" + arg.name +
                                            "' is not an identifier; expected letters, "
                                            "digits and '_'");
    }
    if (!names.insert(arg.name).second) {
      fail(at(key + "name", arg.where),
           "argument '" + arg.name + "' is listed twice; expected unique argument names");
    }
    const std::string what = "argument '" + arg.name + "'";
    if (arg.is_buffer) {
      check_expression(arg.count, Visible::kProblem, what + " count");
    } else {
      check_expression(arg.value, Visible::kProblemAndParameters, what + " value");
    }
    if (arg.output && !arg.is_buffer) {
      fail(at(key + "output", arg.where),
           what + " is a scalar and cannot be an output; expected count for a buffer");
    }
    has_output = has_output || arg.output;
    if (arg.scratch && !arg.is_buffer) {
      fail(at(key + "scratch", arg.where),
           what + " is a scalar and cannot be scratch; expected count for a buffer");
    }
    if (arg.scratch && arg.output) {
      fail(at(key + "scratch", arg.where),
           what +
               " is both an output and scratch; expected one of them: outputs "
               "are checked, scratch buffers only pass data between launches");
    }
    if (arg.constant) check_constant_argument(arg, key);
    if (arg.is_buffer && arg.fill == Fill::kRandom && !(arg.fill_low < arg.fill_high)) {
      fail(at(key + "range", arg.where),
           what + " range is empty; expected [low, high] with low < high");
    }
    if (arg.is_buffer && !arg.scratch && (!arg.output || arg.initialised)) {
      check_generator(arg, what);
    }
    if (arg.reference_fill) check_generator(*arg.reference_fill, "reference of '" + arg.name + "'");
    if (arg.is_buffer && arg.fill == Fill::kData && !arg.data && !arg.scratch &&
        (!arg.output || arg.initialised)) {
      fail(arg.where, what + " has fill data but no data; expected its contents");
    }
    check_output_check(arg, what);
  }
  if (!has_output && spec_.check_outputs) {
    fail(at("arguments", {}),
         "no argument is an output; expected at least one buffer with output: true (or "
         "check: none to time without checking)");
  }
}

// A generator is an expression of the element index `i` alone: the same data at any config.
void SpecChecker::check_generator(const ArgumentSpec& fill, const std::string& what) const {
  if (fill.fill != Fill::kGenerator) return;
  Scope scope;
  scope.set("i", 0);
  try {
    Expression parsed(fill.generator.text, scope);
  } catch (const ExpressionError& e) {
    SourceLocation at = fill.generator.where;
    at.column += column_shift(at) + e.offset;
    fail(at, what + " generator '" + fill.generator.text + "': " + e.message +
                 "; expected an expression of i, the element's index, such as \"i % 7 * 0.5\"");
  }
}

// What only an output may have (an initial fill, a check region, a reference), and the region's
// expressions, which read problem values only: every variant is checked on the same elements.
void SpecChecker::check_output_check(const ArgumentSpec& arg, const std::string& what) const {
  const bool has_check = arg.check_region || arg.reference || arg.reference_fill;
  if (!arg.output && (arg.initialised || has_check)) {
    fail(arg.where, what + " is not an output but has " +
                        (arg.initialised                       ? "an initial fill"
                         : arg.reference || arg.reference_fill ? "a reference"
                                                               : "a check region") +
                        "; expected output: true with it");
  }
  if (!spec_.check_outputs && has_check) {
    fail(arg.where, what + " has " +
                        (arg.reference || arg.reference_fill ? "a reference" : "a check region") +
                        " but the spec says check: none; expected one or the other");
  }
  if (!arg.check_region) return;
  const CheckRegionSpec& region = *arg.check_region;
  const std::string context = "check region of '" + arg.name + "'";
  const size_t dimensions = region.begin.size();
  if (dimensions < 1 || dimensions > 3 || region.end.size() != dimensions ||
      (!region.shape.empty() && region.shape.size() != dimensions)) {
    fail(region.where, context + " has begin of " + std::to_string(dimensions) + ", end of " +
                           std::to_string(region.end.size()) + " and shape of " +
                           std::to_string(region.shape.size()) +
                           " dimensions; expected 1 to 3, the same for each");
  }
  if (region.shape.empty() && dimensions > 1) {
    fail(region.where, context + " has " + std::to_string(dimensions) +
                           " dimensions but no shape; expected shape: [...], the output's "
                           "dimensions, row-major (the last one contiguous)");
  }
  for (const auto& [part, exprs] :
       {std::make_pair("shape", &region.shape), std::make_pair("begin", &region.begin),
        std::make_pair("end", &region.end)}) {
    for (size_t i = 0; i < exprs->size(); ++i) {
      check_expression((*exprs)[i], Visible::kProblem,
                       context + " " + part + "[" + std::to_string(i) + "]");
    }
  }
}

void SpecChecker::check_constant_argument(const ArgumentSpec& arg, const std::string& key) const {
  const std::string what = "argument '" + arg.name + "'";
  const SourceLocation where = at(key + "constant", arg.where);
  if (!arg.is_buffer) {
    fail(where, what +
                    " is a scalar and cannot be constant; expected count (the elements of the "
                    "__constant__ symbol it fills)");
  }
  if (arg.output || arg.scratch) {
    fail(where, what + " is constant and " + (arg.output ? "an output" : "scratch") +
                    ", but kernels cannot write __constant__ memory; expected constant: true "
                    "on inputs only (remove " +
                    (arg.output ? "output" : "scratch") + ": true or constant: true)");
  }
  const std::string& symbol = arg.constant_symbol();
  const SourceLocation symbol_where = at(key + (arg.symbol.empty() ? "name" : "symbol"), where);
  if (!is_identifier(symbol)) {
    fail(symbol_where, what + " names the symbol '" + symbol +
                           "', which is not an identifier; expected the name of a "
                           "__constant__ variable at namespace scope");
  }
  if (!contains(kernel_constants_, symbol)) {
    const std::string source = !context_.kernel_source_as_written.empty()
                                   ? context_.kernel_source_as_written
                               : !spec_.kernel_path.empty() ? spec_.kernel_path
                                                            : std::string("the kernel source");
    fail(symbol_where,
         what + " is constant, but " + source + " declares no __constant__ variable '" + symbol +
             "'" + suggestion(symbol, kernel_constants_) + "; expected one of: " +
             (kernel_constants_.empty() ? "(none found)" : join(kernel_constants_)) +
             (arg.symbol.empty() ? " (or symbol: <name> when the argument's name differs)" : ""));
  }
}

// The reference kernel runs once per workload, so what it is launched with may depend on the
// problem values but not on a config's parameters.
void SpecChecker::check_reference_kernel() const {
  if (!spec_.reference_kernel) return;
  const ReferenceKernelSpec& reference = *spec_.reference_kernel;
  const LaunchSpec& launch = reference.launch;
  const std::string what = "reference kernel '" + launch.kernel_name.text + "'";
  if (!spec_.check_outputs) {
    fail(reference.where, "a " + what +
                              " is given but the check is off (check: none); expected one or "
                              "the other");
  }
  std::set<std::string> seen{reference.path};
  const std::string headers = quoted_includes(
      reference.source, std::filesystem::path(reference.path).parent_path().string(), &seen);
  const std::vector<std::string> globals = global_functions(reference.source + "\n" + headers);
  std::string name = trim(launch.kernel_name.text.substr(0, launch.kernel_name.text.find('<')));
  if (const size_t colons = name.rfind("::"); colons != std::string::npos) {
    name = name.substr(colons + 2);
  }
  if (!contains(globals, name)) {
    fail(launch.kernel_name.where,
         "reference kernel '" + name + "' is not a __global__ function of " + reference.path +
             suggestion(name, globals) +
             "; expected one of: " + (globals.empty() ? "(none found)" : join(globals)));
  }
  bool passes_output = false;
  for (size_t a : launch.arguments) {
    if (a >= spec_.arguments.size()) {
      fail(launch.where, what + " passes argument " + std::to_string(a) + ", but the spec has " +
                             std::to_string(spec_.arguments.size()) +
                             "; expected indices into the arguments");
    }
    passes_output = passes_output || spec_.arguments[a].output;
  }
  if (!passes_output) {
    fail(launch.where, what +
                           " is passed no output, so it computes nothing to check against; "
                           "expected its arguments to include the outputs");
  }
  check_launch_geometry(launch, what + " launch", Visible::kProblem);
  for (const auto& [define, expr] : reference.defines) {
    if (!is_identifier(define)) {
      fail(expr.where, what + " define '" + define +
                           "' is not an identifier; expected letters, digits and '_'");
    }
    check_expression(expr, Visible::kProblem, what + " define '" + define + "'");
  }
}

}  // namespace gputune
