#pragma once
// The C standard headers that kernels written for nvcc include and NVRTC does not provide
// (`#include <math.h>` is "cannot open source file" under NVRTC), as in-memory headers for
// nvrtcCreateProgram, as jitify (which some tuners' runners use) supplies them. NVRTC has the
// device math functions and printf built in; the headers add what is not built in (M_PI, ...).
#include <string>
#include <vector>

namespace gputune {

struct StandardHeader {
  const char* name;    // as the source includes it: "math.h"
  const char* source;  // the header's text
};

// The headers, less any of the same name in a folder the compile `options` search
// (--include-path=DIR, -IDIR): the kernel's own files win.
std::vector<StandardHeader> standard_headers(const std::vector<std::string>& options);

}  // namespace gputune
