#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gputune {

// Named numbers that expressions read. Addresses stay stable, so compiled expressions see
// every later set().
class Scope {
 public:
  void set(const std::string& name, double value);
  bool has(const std::string& name) const;
  double get(const std::string& name) const;  // throws Error(kUsage) when undefined
  double* slot(const std::string& name);      // creates the name (as 0) when new
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::unique_ptr<double>> values_;
};

// Thrown by Expression for text that does not parse or names something undefined.
struct ExpressionError {
  std::string message;  // what was expected, or which name is undefined
  int offset = 0;       // 0-based character offset in the expression text
};

// An arithmetic expression over a Scope: + - * / // % ** (or ^), comparisons, && || ! and
// Python's and or not (with Python's precedence: 'not' below comparisons), 'x in (1, 2)',
// 'x not in [1, 2]', ?:, ceil floor min max abs log2 sqrt ... Division is real, '//' floors;
// callers that need integers say so.
class Expression {
 public:
  Expression(const std::string& text, Scope& scope);  // throws ExpressionError
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  double evaluate() const;
  const std::string& text() const { return text_; }
  std::vector<std::string> names_used() const;

 private:
  struct Impl;
  std::string text_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gputune
