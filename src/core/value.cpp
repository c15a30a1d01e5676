#include "gputune/value.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "gputune/error.h"

namespace gputune {

double Value::as_number() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&v_)) return *d;
  throw Error(ErrorCode::kUsage, "'" + std::get<std::string>(v_) + "' is not a number");
}

const std::string& Value::as_symbol() const {
  if (auto* s = std::get_if<std::string>(&v_)) return *s;
  throw Error(ErrorCode::kUsage, text() + " is not a symbol");
}

std::string Value::text() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v_)) {
    std::ostringstream out;
    out.precision(17);
    out << *d;
    return out.str();
  }
  return std::get<std::string>(v_);
}

std::string Value::json() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return nlohmann::json(*i).dump();
  if (auto* d = std::get_if<double>(&v_)) return nlohmann::json(*d).dump();
  return nlohmann::json(std::get<std::string>(v_)).dump();
}

}  // namespace gputune
