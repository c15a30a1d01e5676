// launch_bounds: __launch_bounds__(threads, N) on each transformed kernel, the threads those of
// its launch after merging; an existing __launch_bounds__ is replaced.
#include <clang/AST/Attr.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include "engine/transformation.h"

namespace gputune::engine {
namespace {

class LaunchBounds : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {"launch_bounds"}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = "launch_bounds takes no target; it applies to every launched kernel";
      return verdict;
    }
    verdict.applies = true;
    verdict.reason = "__launch_bounds__(threads per block, N) on";
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      verdict.reason += " " + function->getNameAsString();
      verdict.places.push_back(kernel.place(function));
    }
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override { return knobs.launch_bounds > 0; }

  std::string key(const SourceKnobs& knobs) const override {
    std::string key = "launch_bounds=" + std::to_string(knobs.launch_bounds);
    for (const auto& [name, threads] : knobs.block_threads) {
      key += "," + name + ":" + std::to_string(threads);
    }
    return key;
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      const std::string name = function->getNameAsString();
      const auto threads = knobs.block_threads.find(name);
      if (threads == knobs.block_threads.end() || threads->second == 0) {
        return {false, "",
                refusal(kernel.place(function), "launch_bounds",
                        "the threads per block of kernel '" + name + "' are not known")};
      }
      const std::string bounds = "__launch_bounds__(" + std::to_string(threads->second) + ", " +
                                 std::to_string(knobs.launch_bounds) + ")";
      if (const auto* existing = function->getAttr<clang::CUDALaunchBoundsAttr>()) {
        const clang::CharSourceRange range = kernel.file_range(existing->getRange());
        if (range.isInvalid()) {
          return {false, "",
                  refusal(kernel.place(function), "launch_bounds",
                          "its __launch_bounds__ is not written in the kernel file")};
        }
        rewriter.ReplaceText(range, bounds);
      } else {
        rewriter.InsertTextBefore(function->getLocation(), bounds + " ");
      }
    }
    return {true, rewritten_source(kernel, rewriter), ""};
  }
};

const TransformationRegistrar kRegistrar{50, std::make_unique<LaunchBounds>()};

}  // namespace
}  // namespace gputune::engine
