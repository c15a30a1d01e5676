#pragma once
#include <string>
#include <vector>

#include "gputune/value.h"

namespace gputune {

// A T1 tuning parameter's "Values": a Python list expression, in the forms published T1 files
// use: a literal list ([16, 32, 64], ["a", "b"], [True, False]), range(...) or
// list(range(...)), a comprehension over a range ([2*i for i in range(1, 11)]), and sums of
// these. `integers` makes integral numbers integers (parameter types int, uint, bool).
// Throws T1ValuesError saying what was expected.
struct T1ValuesError {
  std::string message;
};
std::vector<Value> t1_values(const std::string& text, bool integers);

}  // namespace gputune
