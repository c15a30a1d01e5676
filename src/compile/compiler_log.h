#pragma once
#include <string>

namespace gputune {

// What a compile that succeeded warned about: its log without ptxas's resource report
// (--ptxas-options=-v, which every compile asks for); "" when nothing else is left.
std::string compiler_warnings(const std::string& log);

// The line of a compile log that says what went wrong: the first error
// ("k.cu(3): error: expected a \";\"", "ptxas error   : ..."), else its first line.
std::string first_error_line(const std::string& log);

}  // namespace gputune
