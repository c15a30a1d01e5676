#include "core/expression.h"

#include <gtest/gtest.h>

#include <cmath>

#include "gputune/error.h"

namespace gputune {
namespace {

double eval(const std::string& text) {
  Scope scope;
  scope.set("n", 10);
  scope.set("TILE", 32);
  return Expression(text, scope).evaluate();
}

ExpressionError error_of(const std::string& text) {
  Scope scope;
  scope.set("n", 10);
  scope.set("TILE", 32);
  try {
    Expression e(text, scope);
  } catch (const ExpressionError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for '" << text << "'";
  return {};
}

TEST(Expression, Arithmetic) {
  EXPECT_DOUBLE_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_DOUBLE_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_DOUBLE_EQ(eval("7 / 2"), 3.5);
  EXPECT_DOUBLE_EQ(eval("n - 3 - 2"), 5);
  EXPECT_DOUBLE_EQ(eval("-n + 1"), -9);
  EXPECT_DOUBLE_EQ(eval("2 * 4 * n * n"), 800);
}

TEST(Expression, Modulo) {
  EXPECT_DOUBLE_EQ(eval("TILE % 5"), 2);
  EXPECT_DOUBLE_EQ(eval("7.5 % 2"), 1.5);
  EXPECT_DOUBLE_EQ(eval("1 + 7 % 4 * 2"), 7);  // % binds like * and /, left to right
  EXPECT_DOUBLE_EQ(eval("TILE % 8 == 0"), 1);
}

TEST(Expression, Power) {
  EXPECT_DOUBLE_EQ(eval("2 ** 10"), 1024);
  EXPECT_DOUBLE_EQ(eval("2 ^ 10"), 1024);
  EXPECT_DOUBLE_EQ(eval("2 ** 3 ** 2"), 512);  // right associative
  EXPECT_DOUBLE_EQ(eval("3 * 2 ** 2"), 12);
  EXPECT_DOUBLE_EQ(eval("2*-1"), -2);
}

TEST(Expression, ComparisonsAndLogic) {
  EXPECT_DOUBLE_EQ(eval("n < 11"), 1);
  EXPECT_DOUBLE_EQ(eval("n >= 11"), 0);
  EXPECT_DOUBLE_EQ(eval("n == 10 && TILE != 32"), 0);
  EXPECT_DOUBLE_EQ(eval("n == 10 || TILE != 32"), 1);
  EXPECT_DOUBLE_EQ(eval("!(n == 10)"), 0);
  EXPECT_DOUBLE_EQ(eval("!0"), 1);
  EXPECT_DOUBLE_EQ(eval("n > 5 ? 100 : 200"), 100);
  EXPECT_DOUBLE_EQ(eval("n > 50 ? 100 : 200"), 200);
}

TEST(Expression, Functions) {
  EXPECT_DOUBLE_EQ(eval("ceil(n / 3)"), 4);
  EXPECT_DOUBLE_EQ(eval("floor(n / 3)"), 3);
  EXPECT_DOUBLE_EQ(eval("round(2.5)"), 3);
  EXPECT_DOUBLE_EQ(eval("min(TILE, n)"), 10);
  EXPECT_DOUBLE_EQ(eval("max(TILE, n, 64)"), 64);
  EXPECT_DOUBLE_EQ(eval("abs(-3)"), 3);
  EXPECT_DOUBLE_EQ(eval("log2(TILE)"), 5);
  EXPECT_DOUBLE_EQ(eval("sqrt(16)"), 4);
}

TEST(Expression, SeesLaterSets) {
  Scope scope;
  scope.set("TILE", 16);
  Expression e("TILE * 2", scope);
  EXPECT_DOUBLE_EQ(e.evaluate(), 32);
  scope.set("TILE", 64);
  EXPECT_DOUBLE_EQ(e.evaluate(), 128);
  *scope.slot("TILE") = 8;
  EXPECT_DOUBLE_EQ(e.evaluate(), 16);
}

TEST(Expression, MovedExpressionStillEvaluates) {
  Scope scope;
  scope.set("a", 3);
  Expression e("a + 1", scope);
  Expression moved = std::move(e);
  EXPECT_DOUBLE_EQ(moved.evaluate(), 4);
  EXPECT_EQ(moved.text(), "a + 1");
}

TEST(Expression, NamesUsed) {
  Scope scope;
  scope.set("a", 1);
  scope.set("b", 2);
  scope.set("c", 3);
  Expression e("a * c + 1", scope);
  auto names = e.names_used();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c"}));
}

TEST(Expression, UndefinedName) {
  auto e = error_of("n + TILEX * 2");
  EXPECT_EQ(e.message, "undefined name 'TILEX'");
  EXPECT_EQ(e.offset, 4);
  e = error_of("foo(3)");
  EXPECT_NE(e.message.find("undefined name 'foo'"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 0);
}

TEST(Expression, SyntaxErrors) {
  auto e = error_of("n +");
  EXPECT_NE(e.message.find("expected an operand"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 3);
  e = error_of("n * * 2");
  EXPECT_NE(e.message.find("expected an operand"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 4);
  e = error_of("(n + 1");
  EXPECT_NE(e.message.find("expected ')'"), std::string::npos) << e.message;
  e = error_of("n 2");
  EXPECT_NE(e.message.find("expected an operator"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 2);
  e = error_of("");
  EXPECT_NE(e.message.find("expected an expression"), std::string::npos) << e.message;
  e = error_of("n )");
  EXPECT_NE(e.message.find("unexpected ')'"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 2);
  e = error_of("n ? 1");
  EXPECT_NE(e.message.find("expected ':'"), std::string::npos) << e.message;
}

TEST(Scope, GetAndHas) {
  Scope scope;
  EXPECT_FALSE(scope.has("x"));
  scope.set("x", 2);
  EXPECT_TRUE(scope.has("x"));
  EXPECT_DOUBLE_EQ(scope.get("x"), 2);
  EXPECT_THROW(scope.get("y"), Error);
  double* slot = scope.slot("x");
  scope.set("z", 1);  // adding names leaves existing slots where they were
  EXPECT_EQ(slot, scope.slot("x"));
  EXPECT_EQ(scope.names(), (std::vector<std::string>{"x", "z"}));
}

}  // namespace
}  // namespace gputune
