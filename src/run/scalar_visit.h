#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "gputune/error.h"
#include "gputune/spec.h"

namespace gputune {

// Calls f with a value of the C++ type of `type` (only its type matters).
template <typename F>
auto visit_type(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kInt8:
      return f(int8_t{});
    case ScalarType::kInt16:
      return f(int16_t{});
    case ScalarType::kInt32:
      return f(int32_t{});
    case ScalarType::kInt64:
      return f(int64_t{});
    case ScalarType::kUint8:
      return f(uint8_t{});
    case ScalarType::kUint16:
      return f(uint16_t{});
    case ScalarType::kUint32:
      return f(uint32_t{});
    case ScalarType::kUint64:
      return f(uint64_t{});
    case ScalarType::kFloat32:
      return f(float{});
    case ScalarType::kFloat64:
      return f(double{});
  }
  throw Error(ErrorCode::kInternal, "unknown scalar type");
}

// A spec's number as an element of type T: integers round to nearest.
template <typename T>
T convert(double value) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else {
    return static_cast<T>(std::llround(value));
  }
}

}  // namespace gputune
