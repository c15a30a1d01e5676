#include "space/signature_check.h"

#include <algorithm>

#include "core/text.h"
#include "engine/signatures.h"
#include "gputune/argument_mismatch.h"

namespace gputune {
namespace {

// "scale" of "scale<SKIP, float>" or " scale ".
std::string base_name(const std::string& expression) {
  return trim(expression.substr(0, expression.find('<')));
}

// "const float *x", as declared.
std::string declaration(const engine::ParameterFact& parameter) {
  std::string text = parameter.type;
  if (!parameter.name.empty()) {
    text += (text.empty() || text.back() == '*' ? "" : " ") + parameter.name;
  }
  return text;
}

std::string parameter_list(const engine::KernelSignature& kernel) {
  std::vector<std::string> texts;
  for (const engine::ParameterFact& parameter : kernel.parameters) {
    texts.push_back(declaration(parameter));
  }
  return "(" + join(texts) + ")";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

class Checker {
 public:
  Checker(const Problem& problem, const SignatureRules& rules)
      : spec_(problem.spec()), rules_(rules) {}

  void check(const engine::KernelSignature& kernel, const LaunchSpec& launch) {
    std::vector<size_t> passed;
    for (size_t a : launch.arguments) {
      if (a < spec_.arguments.size() && !spec_.arguments[a].constant) passed.push_back(a);
    }
    const std::string who = "kernel '" + kernel.name + "' (" + kernel.place.str() + ")";
    if (passed.size() != kernel.parameters.size()) {
      std::vector<std::string> names;
      for (size_t a : passed) names.push_back(spec_.arguments[a].name);
      const SourceLocation& where = launch.where.line > 0 || spec_.launches.size() > 1
                                        ? launch.where
                                        : spec_.kernel_name.where;
      throw ArgumentMismatch(
          where.message(who + " takes " + std::to_string(kernel.parameters.size()) +
                        " parameters " + parameter_list(kernel) + ", and the launch passes " +
                        std::to_string(passed.size()) + " arguments (" + join(names) +
                        "); expected one argument per parameter, in the kernel's order"));
    }
    for (size_t i = 0; i < passed.size(); ++i) {
      check(kernel, i, spec_.arguments[passed[i]]);
    }
  }

  std::vector<std::string> warnings;

 private:
  void warn(const std::string& warning) {
    // Launches that pass the same arguments to the same kernel warn once.
    if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end()) {
      warnings.push_back(warning);
    }
  }

  void check(const engine::KernelSignature& kernel, size_t i, const ArgumentSpec& argument) {
    const engine::ParameterFact& parameter = kernel.parameters[i];
    if (!parameter.known) return;
    const std::string what = "argument '" + argument.name + "'";
    const std::string of = "parameter " + std::to_string(i + 1) + " of kernel '" + kernel.name +
                           "', " + "`" + declaration(parameter) + "` (" + kernel.place.str() + ")";
    if (argument.is_buffer != parameter.pointer) {
      throw ArgumentMismatch(argument.where.message(
          what + " is " + (argument.is_buffer ? "a buffer" : "a scalar") + ", and " + of + " is " +
          (parameter.pointer ? "a pointer" : "not a pointer") + "; expected " +
          (parameter.pointer ? "a buffer (count:) for it" : "a scalar (value:) for it")));
    }
    const std::string type = type_name(argument.type);
    if (!parameter.element.empty() && parameter.element != type) {
      if (parameter.pointer) {
        const std::string message = argument.where.message(
            what + " holds " + type + ", and " + of + " points to " + parameter.element +
            ": the kernel reads its bytes as " + parameter.element + "; expected " +
            parameter.element + " elements");
        if (rules_.element_types_must_match) throw ArgumentMismatch(message);
        warn(message);
      } else {
        warn(argument.where.message(
            what + " is " + type + ", and " + of + " is " + parameter.element +
            ": it is passed as " + type + " bytes, which the kernel reads as " + parameter.element +
            "; expected type " + parameter.element));
      }
    }
    if (parameter.pointer && parameter.const_pointee && argument.output) {
      warn(argument.where.message(
          what + " is an output, and " + of +
          " points to const: the kernel cannot write it; expected the argument the kernel "
          "writes marked as the output"));
    }
  }

  const Spec& spec_;
  SignatureRules rules_;
};

}  // namespace

std::vector<std::string> check_signatures(const Problem& problem, const SignatureRules& rules) {
  const engine::KernelUnit unit = problem.kernel_unit(problem.baseline_index());
  const engine::Signatures signatures = engine::kernel_signatures(unit);
  Checker checker(problem, rules);
  std::vector<std::string> unchecked;
  for (const LaunchSpec& launch : problem.spec().launches) {
    const std::string name = base_name(launch.kernel_name.text);
    const auto named = [&name](const engine::KernelSignature& k) { return k.name == name; };
    const auto found = std::find_if(signatures.kernels.begin(), signatures.kernels.end(), named);
    if (found == signatures.kernels.end()) {
      if (!signatures.parsed &&
          std::find(unchecked.begin(), unchecked.end(), name) == unchecked.end()) {
        unchecked.push_back(name);
      }
      continue;
    }
    if (std::count_if(signatures.kernels.begin(), signatures.kernels.end(), named) > 1) continue;
    checker.check(*found, launch);
  }
  // One warning, where a kernel a launch names could not be read.
  if (!unchecked.empty()) {
    checker.warnings.insert(checker.warnings.begin(),
                            problem.spec().kernel_path + ": the kernel does not parse (" +
                                first_line(signatures.diagnostics) + "), so the arguments of " +
                                join(unchecked) + " are not checked against its parameters");
  }
  return checker.warnings;
}

}  // namespace gputune
