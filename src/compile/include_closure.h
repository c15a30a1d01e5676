#pragma once
// What a compile reads besides its source, for the module cache's key: the files its #include
// lines name (quoted or angled, recursively), resolved in NVRTC's order (a quoted name beside
// the including file first, then each --include-path / -I folder; the main source's folder is
// the working folder), with --pre-include files. NVRTC reports no dependency list (13.0 has no
// -M option), so the text is read here, over-approximating what the preprocessor does: lines
// joined by a backslash, comments anywhere in a directive, '%:' for '#', #include_next (every
// folder that holds the name), #import, and the names __has_include(...) looks up (a file
// appearing there changes the code as much as one included). Every directive counts, also one
// under #if or in a comment, which can only make the key change more often than needed.
#include <string>

#include "compile/compiler.h"

namespace gputune {

struct IncludeClosure {
  // False where the files cannot be known from the text: a computed include (#include MACRO),
  // or more than kMaxFiles files or kMaxBytes bytes. Such a compile is never cached.
  bool complete = true;
  std::string why_incomplete;
  // Each resolved file's path and SHA-256, and each name no folder holds (NVRTC's own headers,
  // which the toolchain version covers; a file put there later changes the key).
  std::string fingerprint;

  static constexpr size_t kMaxFiles = 4096;
  static constexpr size_t kMaxBytes = size_t{256} << 20;
};

IncludeClosure include_closure(const CompileRequest& request);

}  // namespace gputune
