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

// " (did you mean 'x'?)" when a known word is close enough to be the intended one, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& known);

}  // namespace gputune
