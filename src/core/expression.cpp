#include "core/expression.h"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/expression_spelling.h"
#include "gputune/error.h"

namespace gputune {

void Scope::set(const std::string& name, double value) { *slot(name) = value; }

bool Scope::has(const std::string& name) const { return values_.count(name) != 0; }

double Scope::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error(ErrorCode::kUsage, "undefined name '" + name + "'");
  return *it->second;
}

double* Scope::slot(const std::string& name) {
  auto& value = values_[name];
  if (!value) value = std::make_unique<double>(0.0);
  return value.get();
}

std::vector<std::string> Scope::names() const {
  std::vector<std::string> names;
  names.reserve(values_.size());
  for (const auto& [name, value] : values_) names.push_back(name);
  return names;
}

namespace {

double fn_ceil(double x) { return std::ceil(x); }
double fn_floor(double x) { return std::floor(x); }
double fn_round(double x) { return std::round(x); }
double fn_fmod(double a, double b) { return std::fmod(a, b); }
double fn_pow(double a, double b) { return std::pow(a, b); }
double fn_not(double x) { return x == 0 ? 1.0 : 0.0; }
double fn_and(double a, double b) { return a != 0 && b != 0 ? 1.0 : 0.0; }
double fn_or(double a, double b) { return a != 0 || b != 0 ? 1.0 : 0.0; }
double fn_floor_div(double a, double b) { return std::floor(a / b); }

// A list after 'in' cannot be a muparser value, so the list function leaves it here and returns
// a marker; the 'in' operator evaluated right after it takes the list back. Arithmetic on the
// marker changes it, which the operator reports.
thread_local std::vector<std::vector<double>> t_lists;
constexpr double kListMarker = 3.0e-300;

double fn_list(const double* values, int count) {
  t_lists.emplace_back(values, values + count);
  return kListMarker;
}

bool take_list_contains(double x, double list) {
  if (list != kListMarker || t_lists.empty()) {
    throw ExpressionError{"the list after 'in' cannot take part in arithmetic; put it last", 0};
  }
  const std::vector<double> values = std::move(t_lists.back());
  t_lists.pop_back();
  return std::find(values.begin(), values.end(), x) != values.end();
}

double fn_in(double x, double list) { return take_list_contains(x, list) ? 1.0 : 0.0; }
double fn_not_in(double x, double list) { return take_list_contains(x, list) ? 0.0 : 1.0; }

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_word_operator(const std::string& word) {
  return word == "and" || word == "or" || word == "not" || word == "in";
}

bool ends_with_prefix_operator(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return false;
  if (std::string("-+!").find(text[end]) != std::string::npos) return true;
  return end >= 2 && text.compare(end - 2, 3, "not") == 0 &&
         (end == 2 || !is_word_char(text[end - 3]));
}

// The word (letters, digits, '_') that contains the offset or ends there; empty where none does.
std::pair<size_t, size_t> word_around(const std::string& text, int offset) {
  size_t start = std::min<size_t>(offset, text.size());
  size_t end = start;
  while (start > 0 && is_word_char(text[start - 1])) --start;
  while (end < text.size() && is_word_char(text[end])) ++end;
  return {start, end};
}

// muparser reports a token's position; an unknown name is the only thing it cannot assign.
ExpressionError translate(const mu::ParserError& e, const RespelledExpression& respelled,
                          const std::string& text) {
  ExpressionError out;
  const int position = std::max(0, e.GetPos());
  out.offset = position < static_cast<int>(respelled.origin.size()) ? respelled.origin[position]
                                                                    : static_cast<int>(text.size());
  std::string token = e.GetToken();
  if (token.rfind(kListFunction, 0) == 0) token = "(";
  if (token.rfind(kNotInOperator, 0) == 0) token = "not in";
  switch (e.GetCode()) {
    case mu::ecUNASSIGNABLE_TOKEN:
      if (!token.empty() && is_identifier_start(token[0])) {
        // A word that starts like 'not' was split by the operator; name the whole word.
        while (out.offset > 0 && is_word_char(text[out.offset - 1])) --out.offset;
        while (out.offset < static_cast<int>(text.size()) &&
               !is_identifier_start(text[out.offset])) {
          ++out.offset;
        }
        std::string name = text.substr(out.offset);
        size_t end = 0;
        while (end < name.size() &&
               (std::isalnum(static_cast<unsigned char>(name[end])) || name[end] == '_')) {
          ++end;
        }
        name = name.substr(0, end);
        out.message = is_word_operator(name)
                          ? "unexpected operator '" + name + "'; expected an operand"
                          : "undefined name '" + name + "'";
      } else {
        out.message = "unexpected '" + token + "'; expected a number, a name or an operator";
      }
      break;
    case mu::ecUNEXPECTED_EOF:
      out.message = "expected an operand at the end of the expression";
      out.offset = static_cast<int>(text.size());
      break;
    case mu::ecUNEXPECTED_OPERATOR: {
      // A word operator found inside a longer undefined word ('not' of 'nothing').
      const auto [start, end] = word_around(text, out.offset);
      if (end > start && is_identifier_start(text[start]) &&
          text.compare(start, end - start, token) != 0) {
        out.message = "undefined name '" + text.substr(start, end - start) + "'";
        out.offset = static_cast<int>(start);
        break;
      }
      if (end > start) out.offset = static_cast<int>(start);
      out.message = "unexpected operator '" + token + "'; expected an operand";
      break;
    }
    case mu::ecUNEXPECTED_VAL:
    case mu::ecUNEXPECTED_VAR:
      out.message = "unexpected '" + token + "'; expected an operator";
      break;
    case mu::ecUNEXPECTED_FUN:
      out.message = "unexpected function '" + token + "'; expected an operator";
      break;
    case mu::ecUNEXPECTED_PARENS:
      out.message = "unexpected '" + token + "'";
      break;
    case mu::ecMISSING_PARENS:
      out.message = "expected ')'";
      out.offset = static_cast<int>(text.size());
      break;
    case mu::ecUNEXPECTED_ARG_SEP:
      out.message = "unexpected ','; commas only separate function arguments";
      break;
    case mu::ecTOO_MANY_PARAMS:
      out.message = "too many arguments to '" + token + "'";
      break;
    case mu::ecTOO_FEW_PARAMS:
      out.message = "too few arguments to '" + token + "'";
      break;
    case mu::ecEMPTY_EXPRESSION:
      out.message = "expected an expression, got nothing";
      out.offset = 0;
      break;
    case mu::ecUNEXPECTED_CONDITIONAL:
    case mu::ecMISPLACED_COLON:
      out.message = "misplaced '" + token + "' of a conditional";
      break;
    case mu::ecMISSING_ELSE_CLAUSE:
      out.message = "expected ':' after '?'";
      break;
    case mu::ecUNEXPECTED_STR:
    case mu::ecUNTERMINATED_STRING:
    case mu::ecSTR_RESULT:
    case mu::ecSTRING_EXPECTED:
      out.message = "strings are not allowed in expressions";
      break;
    case mu::ecINTERNAL_ERROR:
      // muparser's answer to a sign or 'not' with nothing after it.
      if (ends_with_prefix_operator(text)) {
        out.message = "expected an operand at the end of the expression";
        out.offset = static_cast<int>(text.size());
      } else {
        out.message = e.GetMsg();
      }
      break;
    default:
      out.message = e.GetMsg();
      break;
  }
  return out;
}

// Where an error raised while evaluating an operator points: the first 'in'.
int operator_offset(const std::string& text) {
  for (size_t i = text.find("in"); i != std::string::npos; i = text.find("in", i + 1)) {
    const bool starts = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    const bool ends =
        i + 2 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 2]));
    if (starts && ends) return static_cast<int>(i);
  }
  return 0;
}

}  // namespace

struct Expression::Impl {
  mu::Parser parser;
  RespelledExpression respelled;
};

namespace {

// Restores the list stack after an evaluation that threw midway.
class ListStackGuard {
 public:
  ListStackGuard() : depth_(t_lists.size()) {}
  ~ListStackGuard() { t_lists.resize(depth_); }

 private:
  size_t depth_;
};

}  // namespace

Expression::Expression(const std::string& text, Scope& scope)
    : text_(text), impl_(std::make_unique<Impl>()) {
  mu::Parser& p = impl_->parser;
  try {
    p.DefineFun("ceil", fn_ceil);
    p.DefineFun("floor", fn_floor);
    p.DefineFun("round", fn_round);
    p.DefineOprt("%", fn_fmod, mu::prMUL_DIV, mu::oaLEFT);
    p.DefineOprt("**", fn_pow, mu::prPOW, mu::oaRIGHT);
    p.DefineInfixOprt("!", fn_not);
    // Python's spelling: word operators with Python's precedence ('not' below comparisons).
    p.DefineInfixOprtChars(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/+-*^?<>=#!$%&|~'_");
    p.DefineOprt("or", fn_or, mu::prLOR, mu::oaLEFT);
    p.DefineOprt("and", fn_and, mu::prLAND, mu::oaLEFT);
    p.DefineInfixOprt("not", fn_not, mu::prLOGIC);
    p.DefineOprt("//", fn_floor_div, mu::prMUL_DIV, mu::oaLEFT);
    p.DefineOprt("in", fn_in, mu::prCMP, mu::oaLEFT);
    p.DefineOprt(kNotInOperator, fn_not_in, mu::prCMP, mu::oaLEFT);
    p.DefineFun(kListFunction, fn_list, false);
  } catch (const mu::ParserError& e) {
    throw Error(ErrorCode::kInternal, "expression setup: " + e.GetMsg());
  }
  for (const std::string& name : scope.names()) {
    try {
      p.DefineVar(name, scope.slot(name));
    } catch (const mu::ParserError& e) {
      throw ExpressionError{"'" + name + "' cannot be a name in an expression: " + e.GetMsg(), 0};
    }
  }
  impl_->respelled = respell_expression(text);
  try {
    ListStackGuard guard;
    // muparser compares each binary operator's name with the text at the position as a string
    // of the name's length, made from iterators that may run past the formula's end; trailing
    // spaces longer than the longest name (kNotInOperator's) keep that within the formula.
    p.SetExpr(impl_->respelled.text + std::string(std::strlen(kNotInOperator) + 1, ' '));
    p.Eval();  // muparser parses lazily; this reports syntax errors now
  } catch (const mu::ParserError& e) {
    throw translate(e, impl_->respelled, text);
  } catch (ExpressionError& e) {
    e.offset = operator_offset(text);
    throw;
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate() const {
  ListStackGuard guard;
  try {
    return impl_->parser.Eval();
  } catch (const mu::ParserError& e) {
    throw translate(e, impl_->respelled, text_);
  } catch (ExpressionError& e) {
    e.offset = operator_offset(text_);
    throw;
  }
}

std::vector<std::string> Expression::names_used() const {
  std::vector<std::string> names;
  try {
    for (const auto& [name, ptr] : impl_->parser.GetUsedVar()) names.push_back(name);
  } catch (const mu::ParserError& e) {
    throw translate(e, impl_->respelled, text_);
  }
  return names;
}

}  // namespace gputune
