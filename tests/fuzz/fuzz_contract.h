#pragma once
// The contract every reader of outside data keeps, checked on each fuzzed input: it returns, or
// throws gputune::Error of a data class (kSpec: exit 65; kIo: 74; kUsage: 64 for --set), with
// the file in the message. Anything else (another exception, which the CLI reports as an
// internal error, exit 70) aborts, and libFuzzer keeps the input as a crash; so do signals and
// what AddressSanitizer or UndefinedBehaviorSanitizer find.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>

#include "gputune/error.h"

namespace gputune::fuzz {

[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "contract broken: %s\n", what.c_str());
  std::abort();
}

// Runs `read`; `file` must appear in an Error's message.
inline void expect_data_error_only(const std::string& file, const std::function<void()>& read,
                                   bool usage_too = false) {
  try {
    read();
  } catch (const Error& e) {
    const ErrorCode code = e.code();
    const bool data = code == ErrorCode::kSpec || code == ErrorCode::kIo ||
                      (usage_too && code == ErrorCode::kUsage);
    if (!data) broken(std::string("Error of class ") + error_code_name(code) + ": " + e.what());
    if (!file.empty() && std::string(e.what()).find(file) == std::string::npos) {
      broken("an error that does not name " + file + ": " + e.what());
    }
  } catch (const std::exception& e) {
    broken(std::string("an exception the CLI reports as internal (70): ") + e.what());
  } catch (...) {
    broken("an exception of unknown type");
  }
}

}  // namespace gputune::fuzz
