#pragma once
// `gputune select` and Python's gputune.select(): the run-time library's answer for a spec (or
// a kernel name) at problem values, from release databases, with the same code for both.
#include <string>
#include <vector>

#include "gputune/runtime.h"
#include "gputune/session.h"

namespace gputune {

struct SelectRequest {
  std::string spec_or_kernel;    // a spec file or shipped spec's name, else a kernel's name
  ProblemOverrides overrides;    // --set; values must be numbers for a bare kernel name
  std::vector<std::string> dbs;  // release files, the user's first
  // A device described without a GPU: all three, or none for the current GPU (ordinal 0).
  std::string device_name;
  std::string cc;  // "9.0"
  int sm_count = 0;
  bool strict = false;
};

struct SelectOutcome {
  runtime::Selection selection;
  std::vector<std::string> warnings;
  std::string kernel;
};

// Throws Error(kUsage) for a partial device description or --set values that are not numbers,
// and Error(kNoGpu) without a GPU when none is described.
SelectOutcome select_config(const SelectRequest& request);

}  // namespace gputune
