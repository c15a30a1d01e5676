#pragma once
#include <string>

#include "gputune/error.h"

namespace gputune {

// A spec's arguments that do not fit the kernel's parameters (their count, a buffer for a
// scalar parameter or the reverse, a buffer's element type where the bytes must match): a spec
// error, which Python raises as a TypeError.
class ArgumentMismatch : public Error {
 public:
  explicit ArgumentMismatch(const std::string& message) : Error(ErrorCode::kSpec, message) {}
};

}  // namespace gputune
