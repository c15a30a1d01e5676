#include "gputune/spec.h"

#include <cmath>
#include <cstdlib>

#include "core/hash.h"

namespace gputune {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string SourceLocation::message(const std::string& what) const {
  const std::string where = str();
  return where.empty() ? what : where + ": " + what;
}

namespace {
struct TypeInfo {
  ScalarType type;
  const char* name;
  size_t size;
  bool floating;
};
constexpr TypeInfo kTypes[] = {
    {ScalarType::kInt8, "int8", 1, false},      {ScalarType::kInt16, "int16", 2, false},
    {ScalarType::kInt32, "int32", 4, false},    {ScalarType::kInt64, "int64", 8, false},
    {ScalarType::kUint8, "uint8", 1, false},    {ScalarType::kUint16, "uint16", 2, false},
    {ScalarType::kUint32, "uint32", 4, false},  {ScalarType::kUint64, "uint64", 8, false},
    {ScalarType::kFloat32, "float32", 4, true}, {ScalarType::kFloat64, "float64", 8, true},
};
const TypeInfo& info(ScalarType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return t;
  }
  return kTypes[0];
}
}  // namespace

size_t size_of(ScalarType type) { return info(type).size; }
const char* type_name(ScalarType type) { return info(type).name; }
bool is_floating(ScalarType type) { return info(type).floating; }

bool parse_type(const std::string& name, ScalarType* type) {
  for (const auto& t : kTypes) {
    if (name == t.name) {
      *type = t.type;
      return true;
    }
  }
  return false;
}

bool parse_budget(const std::string& text, int64_t* evaluations, double* seconds) {
  *evaluations = 0;
  *seconds = 0;
  if (text.empty()) return false;
  char* end = nullptr;
  double amount = std::strtod(text.c_str(), &end);
  std::string unit(end);
  if (end == text.c_str() || !(amount > 0) || !std::isfinite(amount)) return false;
  if (unit.empty()) {
    if (amount != std::floor(amount) || text.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    *evaluations = static_cast<int64_t>(amount);
    return true;
  }
  if (unit != "s" && unit != "m" && unit != "h") return false;
  *seconds = amount * (unit == "s" ? 1 : unit == "m" ? 60 : 3600);
  return true;
}

std::string ReferenceKernelSpec::name() const {
  const size_t slash = path.find_last_of('/');
  return "reference kernel '" + launch.kernel_name.text + "' (" +
         (slash == std::string::npos ? path : path.substr(slash + 1)) + ")";
}

std::string Spec::spec_hash() const { return stable_hash(text); }

std::string Spec::source_hash() const { return stable_hash(kernel_source); }

}  // namespace gputune
