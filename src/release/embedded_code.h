#pragma once
// Compiled code of every kept config, so that an application needs neither NVRTC nor the kernel
// source: a cubin per listed architecture and PTX for the lowest, which the driver compiles for
// any later GPU.
#include <functional>
#include <string>
#include <vector>

#include "compile/compile_service.h"
#include "compile/compiler.h"
#include "release/release_db.h"

namespace gputune {

struct CodeJob {
  int64_t config_id = 0;
  std::string what;        // "sgemm BM=64 BN=64 ...", for messages
  CompileRequest request;  // as a search compiles the config; the architecture is set per target
};

// "sm_90,sm_80" -> {"sm_80", "sm_90"} (sorted, without duplicates); throws Error(kUsage) naming
// --embed for anything but sm_<number>[suffix].
std::vector<std::string> parse_architectures(const std::string& list);
// The targets a release embeds for `architectures`: each one (cubin) and compute_<lowest> (PTX).
std::vector<std::string> code_targets(const std::vector<std::string>& architectures);

// Compiles every job for every target through `compiles` (the compile pool), saying
// "compiling N kept configs for sm_90..." before each target. Throws Error(kNvrtc) naming the
// kernel, config and target when a kept config does not compile.
std::vector<ReleaseCode> compile_code(const std::vector<CodeJob>& jobs,
                                      const std::vector<std::string>& targets,
                                      CompileService& compiles,
                                      const std::function<void(const std::string&)>& say);

}  // namespace gputune
