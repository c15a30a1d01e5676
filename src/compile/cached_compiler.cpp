#include "compile/cached_compiler.h"

#include <utility>

namespace gputune {
namespace {

class CachedCompiler : public Compiler {
 public:
  CachedCompiler(std::unique_ptr<Compiler> inner, std::shared_ptr<const ModuleCache> cache)
      : inner_(std::move(inner)), cache_(std::move(cache)) {}

  CompiledKernel compile(const CompileRequest& request) override {
    if (!request.refusal.empty()) return refused_kernel(request);
    if (cache_) {
      if (auto hit = cache_->load(request)) {
        hit->cached = true;
        return *hit;
      }
    }
    CompiledKernel kernel = inner_->compile(request);
    if (cache_ && kernel.ok) cache_->save(request, kernel);
    return kernel;
  }

 private:
  std::unique_ptr<Compiler> inner_;
  std::shared_ptr<const ModuleCache> cache_;
};

}  // namespace

std::unique_ptr<Compiler> make_cached_compiler(std::unique_ptr<Compiler> inner,
                                               std::shared_ptr<const ModuleCache> cache) {
  return std::make_unique<CachedCompiler>(std::move(inner), std::move(cache));
}

}  // namespace gputune
