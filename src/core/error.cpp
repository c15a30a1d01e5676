#include "gputune/error.h"

#include <sysexits.h>

namespace gputune {

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return EX_USAGE;
    case ErrorCode::kSpec:
      return EX_DATAERR;
    case ErrorCode::kNoGpu:
      return EX_UNAVAILABLE;
    case ErrorCode::kIo:
      return EX_IOERR;
    case ErrorCode::kDb:
      return EX_CANTCREAT;
    case ErrorCode::kCuda:
    case ErrorCode::kNvrtc:
      return EX_SOFTWARE;
    case ErrorCode::kInternal:
      return EX_SOFTWARE;
  }
  return EX_SOFTWARE;
}

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kSpec:
      return "spec";
    case ErrorCode::kCuda:
      return "cuda";
    case ErrorCode::kNvrtc:
      return "nvrtc";
    case ErrorCode::kDb:
      return "db";
    case ErrorCode::kIo:
      return "io";
    case ErrorCode::kUsage:
      return "usage";
    case ErrorCode::kNoGpu:
      return "no-gpu";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace gputune
