#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/value.h"

namespace gputune {

// A config: each parameter's value, in the space's dimension order.
using Config = std::vector<std::pair<std::string, Value>>;
// Problem values (n, m, ...), in the spec's order.
using ProblemValues = std::vector<std::pair<std::string, double>>;

// The one place where configs and problem values become JSON text and back: the store, the
// recordings and the reports carry these texts and compare them byte for byte.

// {"TILE":32,"PAD":1,"order":"row"}, in the config's order.
std::string config_to_json(const Config& config);
// nullopt for text that is not a JSON object. Members keep their order; integers read as
// integers, other numbers as reals, strings as symbols, anything else as the symbol of its
// JSON text.
std::optional<Config> config_from_json(const std::string& text);

// {"n":8192,"alpha":0.5}: integral values below 9e15 in magnitude as integers.
std::string problem_to_json(const ProblemValues& values);
// The numeric members, in order; nullopt for text that is not a JSON object.
std::optional<ProblemValues> problem_from_json(const std::string& text);

// The value named `name`; null when the config has none.
const Value* find_value(const Config& config, const std::string& name);

// How a config value compares with a symbol: a symbol's text, a number's JSON text ("1.5").
std::string symbol_text(const Value& value);

}  // namespace gputune
