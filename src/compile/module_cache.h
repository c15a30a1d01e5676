#pragma once
#include <optional>
#include <string>

#include "compile/compiler.h"

namespace gputune {

// Compiled modules on disk: the cubin, its lowered name and resource use, keyed by everything
// that determines them (source, options, architecture, kernel name, NVRTC version). A rerun, or
// a search at another problem size, does not compile again. Concurrent searches may share a
// directory: an entry is written to a temporary file and renamed into place.
class ModuleCache {
 public:
  // Creates the directory when missing; throws Error(kIo) if it cannot.
  explicit ModuleCache(std::string directory, std::string toolchain = nvrtc_version());
  // $XDG_CACHE_HOME/gputune/modules, else ~/.cache/gputune/modules.
  static std::string default_directory();

  // nullopt on a miss, and for an entry that is unreadable, truncated or for another key.
  std::optional<CompiledKernel> load(const CompileRequest& request) const;
  // Best effort: a full disk costs a recompilation later, not the search.
  void save(const CompileRequest& request, const CompiledKernel& kernel) const;
  std::string path_for(const CompileRequest& request) const;
  const std::string& directory() const { return directory_; }

 private:
  std::string key(const CompileRequest& request) const;
  std::string directory_, toolchain_;
};

}  // namespace gputune
