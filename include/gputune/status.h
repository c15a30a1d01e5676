#pragma once
#include <string>
#include <string_view>

namespace gputune {

// Outcome of one variant. Names follow the T4 'invalidity' values where they overlap.
enum class Status {
  kOk,
  kConstraint,
  kCompileError,
  kResourceExceeded,
  kRuntimeError,
  kTimeout,
  kWrongAnswer
};

const char* status_name(Status status);          // "ok", "constraint", "compile_error", ...
Status status_from_name(std::string_view name);  // throws Error(kDb) on an unknown name

}  // namespace gputune
