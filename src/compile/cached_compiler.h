#pragma once
#include <memory>

#include "compile/compiler.h"
#include "compile/module_cache.h"

namespace gputune {

// `inner` behind the module cache, in this process: a hit is loaded from disk, a miss compiled
// and saved. For a program that compiles a few variants itself (gputune profile-launch).
std::unique_ptr<Compiler> make_cached_compiler(std::unique_ptr<Compiler> inner,
                                               std::shared_ptr<const ModuleCache> cache);

}  // namespace gputune
