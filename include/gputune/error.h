#pragma once
#include <stdexcept>
#include <string>

namespace gputune {

// Setup and misuse errors. A variant's own failure is a Status, never an Error.
enum class ErrorCode { kSpec, kCuda, kNvrtc, kDb, kIo, kUsage, kNoGpu, kInternal };

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Exit code from sysexits.h for an error of this code.
int exit_code_for(ErrorCode code);
const char* error_code_name(ErrorCode code);

}  // namespace gputune
