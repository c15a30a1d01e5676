#include "gputune/status.h"

#include "gputune/error.h"

namespace gputune {

namespace {
constexpr Status kAll[] = {Status::kOk,           Status::kCompileError, Status::kResourceExceeded,
                           Status::kRuntimeError, Status::kTimeout,      Status::kWrongAnswer};
}

const char* status_name(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kCompileError:
      return "compile_error";
    case Status::kResourceExceeded:
      return "resource_exceeded";
    case Status::kRuntimeError:
      return "runtime_error";
    case Status::kTimeout:
      return "timeout";
    case Status::kWrongAnswer:
      return "wrong_answer";
  }
  return "?";
}

Status status_from_name(std::string_view name) {
  for (Status s : kAll) {
    if (name == status_name(s)) return s;
  }
  throw Error(ErrorCode::kDb, "unknown variant status '" + std::string(name) + "'");
}

}  // namespace gputune
