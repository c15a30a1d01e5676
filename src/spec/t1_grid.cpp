#include "spec/t1_grid.h"

#include "core/expression.h"

namespace gputune {

std::string divided_grid(const std::string& problem, const std::vector<std::string>& divisors) {
  if (divisors.empty()) return problem;
  std::string product;
  for (const std::string& divisor : divisors) {
    product += (product.empty() ? "(" : " * (") + divisor + ")";
  }
  return "ceil((" + problem + ") / (" + product + "))";
}

std::optional<std::vector<double>> at_baseline(const Spec& spec,
                                               const std::vector<ExprText>& expressions) {
  Scope scope;
  try {
    for (const auto& [name, text] : spec.problem) {
      scope.set(name, Expression(text.text, scope).evaluate());
    }
    for (const ParameterSpec& parameter : spec.parameters) {
      const Value* value = parameter.values.empty() ? nullptr : &parameter.values.front();
      for (const auto& [name, fallback] : spec.baseline) {
        if (name == parameter.name) value = &fallback;
      }
      if (value && value->is_number()) scope.set(parameter.name, value->as_number());
    }
    std::vector<double> out;
    for (const ExprText& expression : expressions) {
      out.push_back(Expression(expression.text, scope).evaluate());
    }
    return out;
  } catch (const ExpressionError&) {
    return std::nullopt;
  }
}

}  // namespace gputune
