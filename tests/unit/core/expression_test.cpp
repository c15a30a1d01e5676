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

TEST(Expression, PythonSpellingEvaluatesLikeC) {
  Scope scope;
  for (double a : {0.0, 1.0}) {
    for (double b : {0.0, 2.0}) {
      for (double c : {0.0, -1.0}) {
        scope.set("a", a);
        scope.set("b", b);
        scope.set("c", c);
        auto both = [&](const std::string& python, const std::string& c_text) {
          EXPECT_DOUBLE_EQ(Expression(python, scope).evaluate(),
                           Expression(c_text, scope).evaluate())
              << python << " vs " << c_text << " at a=" << a << " b=" << b << " c=" << c;
        };
        both("a and b", "a && b");
        both("a or b", "a || b");
        both("not a", "!a");
        both("not a and b or c", "((!a) && b) || c");
        both("a or b and c", "a || (b && c)");
        both("not a == b", "!(a == b)");
        both("not a + 1", "!(a + 1)");
        both("a < b and b > c", "(a < b) && (b > c)");
        both("a == 1 or c == -1 and b == 2", "a == 1 || (c == -1 && b == 2)");
      }
    }
  }
}

TEST(Expression, WordOperatorsLeaveNamesThatStartWithThemAlone) {
  Scope scope;
  scope.set("order", 3);
  scope.set("nothing", 0);
  scope.set("index", 4);
  scope.set("android", 1);
  EXPECT_DOUBLE_EQ(Expression("order or nothing", scope).evaluate(), 1);
  EXPECT_DOUBLE_EQ(Expression("not nothing and android", scope).evaluate(), 1);
  EXPECT_DOUBLE_EQ(Expression("index in (4, 5) and order == 3", scope).evaluate(), 1);
}

TEST(Expression, FloorDivision) {
  EXPECT_DOUBLE_EQ(eval("7 // 2"), 3);
  EXPECT_DOUBLE_EQ(eval("-7 // 2"), -4);  // floors as Python does, not towards zero
  EXPECT_DOUBLE_EQ(eval("7 // -2"), -4);
  EXPECT_DOUBLE_EQ(eval("-8 // 2"), -4);
  EXPECT_DOUBLE_EQ(eval("7.5 // 2"), 3);
  EXPECT_DOUBLE_EQ(eval("1 + 7 // 2 * 2"), 7);  // binds like * and /, left to right
  EXPECT_DOUBLE_EQ(eval("n // 3 * 3 == 9"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE // 2 ** 2"), 8);
}

TEST(Expression, In) {
  EXPECT_DOUBLE_EQ(eval("TILE in (16, 32)"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE in (8, 16)"), 0);
  EXPECT_DOUBLE_EQ(eval("TILE in [1, 2, 32]"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE in [32]"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE in(n * 3 + 2, 4)"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE / 2 in (16,)"), 1);  // Python's list of one
  EXPECT_DOUBLE_EQ(eval("TILE in [1, 32, ]"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE not in (8, 16)"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE not in [32]"), 0);
  EXPECT_DOUBLE_EQ(eval("not TILE in (32,)"), 0);
  EXPECT_DOUBLE_EQ(eval("TILE + 1 in (33, 34)"), 1);  // 'in' compares, below arithmetic
  EXPECT_DOUBLE_EQ(eval("TILE in (32) and n in [10, 20] or 0"), 1);
  EXPECT_DOUBLE_EQ(eval("(TILE in (1, 2)) in (0,)"), 1);
  EXPECT_DOUBLE_EQ(eval("n > 5 ? TILE in (32, 64) : 0"), 1);
  EXPECT_DOUBLE_EQ(eval("TILE in (n in (10,), 32)"), 1);
}

TEST(Expression, InEvaluatesRepeatedlyWithLaterSets) {
  Scope scope;
  scope.set("x", 1);
  Expression e("x in (1, 2, 4) and x not in [2]", scope);
  int hits = 0;
  for (int x = 0; x < 8; ++x) {
    scope.set("x", x);
    hits += e.evaluate() != 0;
  }
  EXPECT_EQ(hits, 2);
}

TEST(Expression, ForeignOperatorsNameTheOneToUse) {
  auto e = error_of("n = 10");
  EXPECT_EQ(e.message, "'=' is not an operator here: write '==' to compare");
  EXPECT_EQ(e.offset, 2);
  e = error_of("n > 1 & TILE > 1");
  EXPECT_EQ(e.message, "'&' is not an operator here: write 'and' (or '&&')");
  EXPECT_EQ(e.offset, 6);
  e = error_of("n > 1 | TILE > 1");
  EXPECT_EQ(e.message, "'|' is not an operator here: write 'or' (or '||')");
  e = error_of("n is 10");
  EXPECT_EQ(e.message, "'is' is not an operator or name here: write '=='");
  EXPECT_EQ(e.offset, 2);
  e = error_of("n == 1 xor TILE == 2");
  EXPECT_NE(e.message.find("'xor' is not an operator or name here"), std::string::npos);
  e = error_of("n > 1 == True");
  EXPECT_EQ(e.message, "'True' is not an operator or name here: write 1");
  e = error_of("TILE in n");
  EXPECT_EQ(e.message, "'in' needs a list after it: write 'x in (1, 2)' or 'x in [1, 2]'");
  EXPECT_EQ(e.offset, 5);
  e = error_of("TILE in (1, 2) + 1");
  EXPECT_NE(e.message.find("the list after 'in' cannot take part in arithmetic"), std::string::npos)
      << e.message;
  EXPECT_EQ(e.offset, 5);
  e = error_of("TILE in [1, 2)");
  EXPECT_NE(e.message.find("expected ']'"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 13);
  e = error_of("TILE in [1, 2");
  EXPECT_NE(e.message.find("expected ']'"), std::string::npos) << e.message;
  e = error_of("[n] == 1");
  EXPECT_EQ(e.message, "'[' only opens a list after 'in'; group with '(' and ')'");
  EXPECT_EQ(e.offset, 0);
  e = error_of("TILE in ( )");
  EXPECT_EQ(e.message, "the list after 'in' is empty");
  e = error_of("n ]");
  EXPECT_EQ(e.message, "unexpected ']'");
}

TEST(Expression, ErrorsAfterRespellingPointIntoTheOriginalText) {
  auto e = error_of("TILE in (1, 2) and TILEX > 1");
  EXPECT_EQ(e.message, "undefined name 'TILEX'");
  EXPECT_EQ(e.offset, 19);
  e = error_of("not nothing");
  EXPECT_EQ(e.message, "undefined name 'nothing'");
  EXPECT_EQ(e.offset, 4);
  e = error_of("nothing");
  EXPECT_EQ(e.message, "undefined name 'nothing'");
  EXPECT_EQ(e.offset, 0);
  e = error_of("n or or 1");
  EXPECT_EQ(e.message, "unexpected operator 'or'; expected an operand");  // never a name
  EXPECT_EQ(e.offset, 5);
  e = error_of("n and not");
  EXPECT_EQ(e.message, "expected an operand at the end of the expression");
  e = error_of("n and");
  EXPECT_NE(e.message.find("expected an operand"), std::string::npos) << e.message;
  EXPECT_EQ(e.offset, 5);
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
