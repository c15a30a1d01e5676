#pragma once
#include <string>
#include <vector>

namespace gputune {

// Expression text as muparser reads it: "x in (1, 2)" and "x in [1, 2]" call the list function
// that the 'in' operator consumes, and "x not in (...)" uses the 'not in' operator. Words and
// characters that are operators in other languages but not here (single '=', '&', '|', 'is',
// 'xor', ...) are refused with the spelling to use instead.
struct RespelledExpression {
  std::string text;
  std::vector<int> origin;  // for each character of text, its offset in the original text
};

extern const char kListFunction[];   // the function a list after 'in' becomes
extern const char kNotInOperator[];  // the binary operator 'not in' becomes

RespelledExpression respell_expression(const std::string& text);  // throws ExpressionError

}  // namespace gputune
