#include "spec/t1_fields.h"

#include "core/text.h"
#include "gputune/error.h"

namespace gputune {

void T1Fields::fail(const std::string& pointer, const std::string& what) const {
  throw Error(ErrorCode::kSpec, where_.at(pointer).str() + ": " + what);
}

const nlohmann::json& T1Fields::member(const nlohmann::json& object, const std::string& pointer,
                                       const std::string& key, const std::string& expected) const {
  if (!object.contains(key)) {
    fail(pointer, pointer_name(pointer) + " has no '" + key + "'; expected " + expected);
  }
  return object.at(key);
}

std::string T1Fields::string_at(const nlohmann::json& value, const std::string& pointer) const {
  if (!value.is_string()) {
    fail(pointer, pointer_name(pointer) + " must be a string, got " + value.dump());
  }
  return value.get<std::string>();
}

std::string T1Fields::expression_at(const nlohmann::json& value, const std::string& pointer) const {
  if (value.is_number()) return value.dump();
  return with_problem_names(string_at(value, pointer));
}

void T1Fields::reject_unmappable(
    const nlohmann::json& object, const std::string& pointer,
    const std::vector<std::pair<std::string, std::string>>& keys) const {
  for (const auto& [key, instead] : keys) {
    if (object.contains(key) && !object.at(key).is_null() &&
        !(object.at(key).is_array() && object.at(key).empty())) {
      fail(pointer + "/" + key, "T1 '" + key + "' is not supported by gputune; " + instead);
    }
  }
}

std::string T1Fields::with_problem_names(const std::string& text) {
  static const std::string kName = "ProblemSize";
  std::string out;
  size_t copied = 0;
  for (size_t at = text.find(kName); at != std::string::npos; at = text.find(kName, at + 1)) {
    if (at < copied) continue;
    const size_t open = skip_spaces(text, at + kName.size());
    if (open >= text.size() || text[open] != '[') continue;
    const size_t digits = skip_spaces(text, open + 1);
    const size_t digits_end = skip_digits(text, digits);
    const size_t close = skip_spaces(text, digits_end);
    if (digits_end == digits || close >= text.size() || text[close] != ']') continue;
    out +=
        text.substr(copied, at - copied) + kName + "_" + text.substr(digits, digits_end - digits);
    copied = close + 1;
  }
  return out + text.substr(copied);
}

std::string T1Fields::pointer_name(const std::string& pointer) {
  return pointer.empty() ? "the T1 file" : pointer.substr(1);
}

}  // namespace gputune
