#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace gputune {

// Without leading and trailing spaces, tabs and line ends.
std::string trim(const std::string& text);

// "a, b, c"
std::string join(const std::vector<std::string>& words);

// Letters, digits and '_', not starting with a digit.
bool is_identifier(const std::string& text);

// Levenshtein distance, ignoring case.
size_t edit_distance(const std::string& a, const std::string& b);

// Hand-written matching over text of any length, in place of std::regex (libstdc++'s recurses
// once per character and overflows the stack on long input). Each returns the first position
// at or after `at` that is not a space (isspace, "C" locale), not a decimal digit, not an
// identifier character (letters, digits, '_'); text.size() at the end.
size_t skip_spaces(const std::string& text, size_t at);
size_t skip_digits(const std::string& text, size_t at);
size_t skip_identifier_chars(const std::string& text, size_t at);

// The position of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or std::string::npos when there is none. Text
// read from a file is checked once with it, so that no JSON written later throws on it.
size_t first_invalid_utf8(const std::string& text);

// "m=4096,n=2*m" is two assignments; a comma inside an expression ("n=max(a, b)") is not a
// separator, since what follows it is not "name=".
std::vector<std::string> split_assignments(const std::string& text);

// " (did you mean 'x'?)" when a known word is close enough to be the intended one, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& known);

}  // namespace gputune
