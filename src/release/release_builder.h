#pragma once
// `gputune release`: result databases in, one release database out (docs/release-format.md).
#include <functional>
#include <string>
#include <vector>

#include "compile/compile_service.h"
#include "release/release_db.h"

namespace gputune {

struct ReleaseOptions {
  std::vector<std::string> databases;
  std::vector<std::string> spec_paths;  // where the kernels' sources are found (--spec)
  // Architectures to embed cubins for (with PTX for the lowest); empty: the measured GPUs'.
  std::vector<std::string> architectures;
  bool embed_code = true;
  int top = 5;
  std::vector<std::string> kernels;  // only these kernel names; empty: all
  std::string commit;                // gputune commit to record
  std::string created_at;            // UTC, ISO 8601
};

// Reads the databases, applies the keep rule (release/keep_rule.h) and, with embed_code,
// compiles every kept config through `compiles`. Every table comes sorted, so that the same
// inputs give the same release. `say` hears progress ("compiling 12 kept configs for sm_90...")
// and warnings.
Release build_release_model(const ReleaseOptions& options, CompileService* compiles,
                            const std::function<void(const std::string&)>& say = {});

// Writes `release` to `output` and its dump (release/release_dump.h) to `output`.txt, each to a
// temporary file renamed into place. Refuses an existing output unless `force`.
void write_release_files(const Release& release, const std::string& output, bool force);

}  // namespace gputune
