#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace gputune {

// One value of a parameter: an integer, a real or a symbol (row, diagonal, float, ...).
class Value {
 public:
  Value() : v_(int64_t{0}) {}
  Value(int64_t v) : v_(v) {}  // NOLINT: implicit on purpose, values are written as literals
  Value(double v) : v_(v) {}   // NOLINT
  Value(std::string v) : v_(std::move(v)) {}  // NOLINT

  bool is_number() const { return !std::holds_alternative<std::string>(v_); }
  bool is_integer() const { return std::holds_alternative<int64_t>(v_); }
  double as_number() const;  // throws Error(kUsage) for a symbol
  const std::string& as_symbol() const;
  std::string text() const;  // as it goes into a macro or a template argument
  std::string json() const;  // a JSON scalar
  bool operator==(const Value& other) const { return v_ == other.v_; }
  // Calls f with the int64_t, double or std::string held.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }

 private:
  std::variant<int64_t, double, std::string> v_;
};

// nlohmann::json's conversion hook, found by ADL: `json["TILE"] = value` writes the scalar that
// json() writes, without this header depending on the library.
template <typename Json>
void to_json(Json& json, const Value& value) {
  value.visit([&](const auto& v) { json = v; });
}

}  // namespace gputune
