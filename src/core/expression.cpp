#include "core/expression.h"

#include <muParser.h>

#include <cctype>
#include <cmath>

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

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

// muparser reports a token's position; an unknown name is the only thing it cannot assign.
ExpressionError translate(const mu::ParserError& e, const std::string& text) {
  ExpressionError out;
  out.offset = std::max(0, std::min<int>(e.GetPos(), static_cast<int>(text.size())));
  const std::string& token = e.GetToken();
  switch (e.GetCode()) {
    case mu::ecUNASSIGNABLE_TOKEN:
      if (!token.empty() && is_identifier_start(token[0])) {
        std::string name = token;
        size_t end = 0;
        while (end < name.size() &&
               (std::isalnum(static_cast<unsigned char>(name[end])) || name[end] == '_')) {
          ++end;
        }
        name = name.substr(0, end);
        out.message = "undefined name '" + name + "'";
      } else {
        out.message = "unexpected '" + token + "'; expected a number, a name or an operator";
      }
      break;
    case mu::ecUNEXPECTED_EOF:
      out.message = "expected an operand at the end of the expression";
      out.offset = static_cast<int>(text.size());
      break;
    case mu::ecUNEXPECTED_OPERATOR:
      out.message = "unexpected operator '" + token + "'; expected an operand";
      break;
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
    default:
      out.message = e.GetMsg();
      break;
  }
  return out;
}

}  // namespace

struct Expression::Impl {
  mu::Parser parser;
};

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
  try {
    p.SetExpr(text);
    p.Eval();  // muparser parses lazily; this reports syntax errors now
  } catch (const mu::ParserError& e) {
    throw translate(e, text);
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate() const {
  try {
    return impl_->parser.Eval();
  } catch (const mu::ParserError& e) {
    throw translate(e, text_);
  }
}

std::vector<std::string> Expression::names_used() const {
  std::vector<std::string> names;
  try {
    for (const auto& [name, ptr] : impl_->parser.GetUsedVar()) names.push_back(name);
  } catch (const mu::ParserError& e) {
    throw translate(e, text_);
  }
  return names;
}

}  // namespace gputune
