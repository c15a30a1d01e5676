#include "compile/device_type_name.h"

#include "gputune/error.h"

namespace gputune {

const char* device_type_name(ScalarType type) {
  switch (type) {
    case ScalarType::kInt8:
      return "signed char";
    case ScalarType::kInt16:
      return "short";
    case ScalarType::kInt32:
      return "int";
    case ScalarType::kInt64:
      return "long long";
    case ScalarType::kUint8:
      return "unsigned char";
    case ScalarType::kUint16:
      return "unsigned short";
    case ScalarType::kUint32:
      return "unsigned int";
    case ScalarType::kUint64:
      return "unsigned long long";
    case ScalarType::kFloat32:
      return "float";
    case ScalarType::kFloat64:
      return "double";
  }
  throw Error(ErrorCode::kInternal, "unknown scalar type");
}

}  // namespace gputune
