#include "spec/t1_values.h"

#include <cmath>

#include "core/expression.h"
#include "core/text.h"

namespace gputune {
namespace {

[[noreturn]] void fail(const std::string& what) { throw T1ValuesError{what}; }

// Splits at `separator` outside brackets and quotes.
std::vector<std::string> split_top(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == separator && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (depth != 0 || quote) fail("unbalanced brackets or quotes in '" + text + "'");
  parts.push_back(trim(current));
  return parts;
}

bool wrapped_in(const std::string& text, const std::string& open, char close) {
  if (text.size() < open.size() + 1 || text.compare(0, open.size(), open) != 0 ||
      text.back() != close) {
    return false;
  }
  // The opening bracket must close at the very end, not earlier ("[1] + [2]").
  int depth = 0;
  for (size_t i = open.size() - 1; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '[') ++depth;
    if (text[i] == ')' || text[i] == ']') --depth;
    if (depth == 0 && i + 1 < text.size()) return false;
  }
  return true;
}

std::string inner(const std::string& text, size_t open_size) {
  return trim(text.substr(open_size, text.size() - open_size - 1));
}

double evaluate(const std::string& text, Scope& scope) {
  try {
    return Expression(text, scope).evaluate();
  } catch (const ExpressionError& e) {
    fail("cannot evaluate '" + text + "' (" + e.message + ")");
  }
}

Value number_value(double v, bool integers) {
  if (integers && std::isfinite(v) && v == std::floor(v)) return Value(static_cast<int64_t>(v));
  return Value(v);
}

std::vector<int64_t> range_of(const std::string& arguments, Scope& scope) {
  const std::vector<std::string> parts = split_top(arguments, ',');
  if (parts.empty() || parts.size() > 3 || parts[0].empty()) {
    fail("range(" + arguments + ") takes 1 to 3 arguments; expected range(stop), " +
         "range(start, stop) or range(start, stop, step)");
  }
  std::vector<int64_t> bounds;
  for (const std::string& part : parts) {
    const double v = evaluate(part, scope);
    if (v != std::floor(v)) fail("range argument '" + part + "' is not an integer");
    bounds.push_back(static_cast<int64_t>(v));
  }
  const int64_t start = bounds.size() == 1 ? 0 : bounds[0];
  const int64_t stop = bounds.size() == 1 ? bounds[0] : bounds[1];
  const int64_t step = bounds.size() == 3 ? bounds[2] : 1;
  if (step == 0) fail("range(" + arguments + ") has step 0");
  std::vector<int64_t> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(i);
    if (out.size() > 1000000) fail("range(" + arguments + ") has over a million values");
  }
  return out;
}

Value element(const std::string& text, bool integers, Scope& scope) {
  if (text.size() >= 2 && (text[0] == '"' || text[0] == '\'') && text.back() == text[0]) {
    return Value(text.substr(1, text.size() - 2));
  }
  if (text == "True") return Value(int64_t{1});
  if (text == "False") return Value(int64_t{0});
  if (text.empty()) fail("an empty list element");
  return number_value(evaluate(text, scope), integers);
}

// [EXPR for NAME in range(...)]
std::vector<Value> comprehension(const std::string& body, bool integers) {
  const size_t for_at = body.find(" for ");
  const size_t in_at = body.find(" in ", for_at);
  if (in_at == std::string::npos) fail("expected [EXPRESSION for NAME in range(...)]");
  const std::string expression = trim(body.substr(0, for_at));
  const std::string name = trim(body.substr(for_at + 5, in_at - for_at - 5));
  std::string source = trim(body.substr(in_at + 4));
  if (source.find(" if ") != std::string::npos) {
    fail(
        "a comprehension with 'if' is not supported; list the values, or filter them with a "
        "condition");
  }
  if (wrapped_in(source, "list(", ')')) source = inner(source, 5);
  if (!wrapped_in(source, "range(", ')')) {
    fail("a comprehension must iterate over range(...), got '" + source + "'");
  }
  Scope outer;
  const std::vector<int64_t> indices = range_of(inner(source, 6), outer);
  Scope scope;
  double* slot = scope.slot(name);
  std::vector<Value> out;
  for (int64_t i : indices) {
    *slot = static_cast<double>(i);
    out.push_back(element(expression, integers, scope));
  }
  return out;
}

std::vector<Value> term(const std::string& text, bool integers) {
  Scope scope;
  if (wrapped_in(text, "list(", ')')) return term(inner(text, 5), integers);
  if (wrapped_in(text, "range(", ')')) {
    std::vector<Value> out;
    for (int64_t i : range_of(inner(text, 6), scope)) out.push_back(Value(i));
    return out;
  }
  if (wrapped_in(text, "[", ']')) {
    const std::string body = inner(text, 1);
    if (body.find(" for ") != std::string::npos) return comprehension(body, integers);
    std::vector<Value> out;
    if (body.empty()) return out;
    for (const std::string& part : split_top(body, ',')) {
      if (part.empty()) continue;  // a trailing comma
      out.push_back(element(part, integers, scope));
    }
    return out;
  }
  fail("'" + text + "' is not a list; expected [a, b, ...], range(...), list(range(...)) or " +
       "[EXPRESSION for NAME in range(...)]");
}

}  // namespace

std::vector<Value> t1_values(const std::string& text, bool integers) {
  std::vector<Value> out;
  for (const std::string& part : split_top(trim(text), '+')) {
    for (Value& v : term(part, integers)) out.push_back(std::move(v));
  }
  if (out.empty()) fail("'" + text + "' gives no values; expected at least one");
  return out;
}

}  // namespace gputune
