#pragma once
// Release databases (docs/release-format.md): tuning results that ship with an application.
// The command line (`gputune release`) and any other front end build them through these.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gputune {

struct ReleaseRequest {
  std::vector<std::string> databases;  // result databases, read-only
  std::string output;                  // FILE.gtrel; the text dump goes to FILE.gtrel.txt
  std::vector<std::string> specs;      // spec files whose kernel sources to use (--spec)
  // Architectures to embed a cubin for, "sm_90,sm_80" (PTX for the lowest too); empty: those
  // of the GPUs the results were measured on.
  std::string embed;
  bool no_code = false;
  int top = 5;                       // configs kept per kernel, device and problem point
  std::vector<std::string> kernels;  // only these kernel names; empty: every kernel
  bool force = false;                // replace an existing output
  std::string commit;                // gputune commit to record in the release
  size_t jobs = 0;                   // compiler processes; 0: one per hardware thread
  std::string cache_dir;             // empty: the module cache's default folder
  bool use_cache = true;
};

struct ReleaseSummary {
  std::string output, dump;
  size_t kernels = 0, devices = 0, problems = 0, choices = 0, configs = 0, code = 0;
  std::vector<std::string> code_targets;
  // Python's release(), and `gputune release --json`: these fields by these names.
  std::string json() const;
};

// Builds the release and its dump. `say` hears progress and warnings, a line at a time.
ReleaseSummary build_release(const ReleaseRequest& request,
                             const std::function<void(const std::string&)>& say = {});

// The canonical text dump of a release file (the FILE.gtrel.txt beside it).
std::string release_dump_text(const std::string& path);

}  // namespace gputune
