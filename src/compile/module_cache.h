#pragma once
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "compile/compiler.h"
#include "compile/include_closure.h"

namespace gputune {

// Compiled modules on disk: the cubin, its lowered name and resource use, keyed by everything
// that determines them (source, every file it includes with their contents, options,
// architecture, kernel name, NVRTC version). A rerun, or a search at another problem size,
// does not compile again. Concurrent searches may share a directory: an entry is written to a
// temporary file and renamed into place.
//
// Entries are authenticated: each ends with an HMAC-SHA-256 of its bytes under the cache key,
// a secret of the user's (`key_file`), so an entry written by anyone without the key (another
// user of a shared folder, a tampered file) is a miss, never a module. A compile whose includes
// cannot be known from the text (include_closure.h) is neither loaded nor saved.
class ModuleCache {
 public:
  // Creates the directory when missing, and the key file (32 random bytes, mode 0600) where
  // it is missing; throws Error(kIo) if it cannot, or where the key file is open to others.
  explicit ModuleCache(std::string directory, std::string toolchain = nvrtc_version(),
                       std::string key_file = default_key_file());
  // $XDG_CACHE_HOME/gputune/modules, else ~/.cache/gputune/modules, else (no home folder)
  // $TMPDIR/gputune-modules-UID, made private to the user.
  static std::string default_directory();
  // $GPUTUNE_CACHE_KEY (a file; share it to share a cache folder among users), else
  // $XDG_CONFIG_HOME/gputune/module-cache.key, else ~/.config/gputune/module-cache.key, else
  // (no home folder) module-cache.key in the private fallback folder.
  static std::string default_key_file();

  // nullopt on a miss, and for an entry that is unreadable, truncated, for another key or not
  // authenticated by the cache key.
  std::optional<CompiledKernel> load(const CompileRequest& request) const;
  // Best effort: a full disk costs a recompilation later, not the search.
  void save(const CompileRequest& request, const CompiledKernel& kernel) const;
  // The entry's file; "" where the compile cannot be cached.
  std::string path_for(const CompileRequest& request) const;
  const std::string& directory() const { return directory_; }

 private:
  // The key, or nullopt where the compile cannot be cached.
  std::optional<std::string> key(const CompileRequest& request) const;
  IncludeClosure closure(const CompileRequest& request) const;
  std::string entry_path(const std::string& key) const;
  std::string directory_, toolchain_, secret_;
  // Included files are read once per process for the same includes and folders, so the key a
  // compile is saved under is the one it was looked up with.
  mutable std::mutex mutex_;
  mutable std::map<std::string, IncludeClosure> closures_;
};

}  // namespace gputune
