// thread_merge_x, thread_merge_y, merge_layout: one real thread runs the kernel's body for N
// virtual threads along x or y (the launch's block shrinks by N, the grid stays). Statements
// that depend on the merged threadIdx components are written once per copy; the others are kept
// once, and loads the copies share are read once into a register (docs/engine.md).
#include <clang/Rewrite/Core/Rewriter.h>

#include "engine/merge_walk.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

struct Outcome {
  Rewrite rewrite;
  ThreadMergeStats stats;
};

std::string knob_name(int x, int y) {
  if (x > 1 && y > 1) return "thread_merge_x/y";
  return x > 1 ? "thread_merge_x" : "thread_merge_y";
}

Outcome merge(const ParsedKernel& kernel, const SourceKnobs& knobs) {
  const std::string knob = knob_name(knobs.thread_merge_x, knobs.thread_merge_y);
  Outcome outcome;
  if (knobs.thread_merge_x < 1 || knobs.thread_merge_y < 1) {
    outcome.rewrite = {false, "", knob + ": the factors must be at least 1"};
    return outcome;
  }
  const Factors factors{knobs.thread_merge_x, knobs.thread_merge_y};
  const Dims merged = (factors.x > 1 ? kDimX : 0) | (factors.y > 1 ? kDimY : 0);
  try {
    KernelText text(kernel, knob);
    const CallFacts facts(kernel, knob);
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      if (is_fused_kernel(function->getNameAsString())) continue;
      facts.check(*function, {Builtin::kThreadIdx, Builtin::kBlockDim}, merged);
      const IndexDependence dependence(facts, *function, {Builtin::kThreadIdx, merged, false});
      const auto* body = llvm::cast<clang::CompoundStmt>(function->getBody());
      const Dims unread = merged & ~dependence.dims(body);
      if (unread) {
        throw MergeRefusal{refusal(kernel.place(function), knob,
                                   "kernel '" + function->getNameAsString() + "' does not read " +
                                       dims_text("threadIdx", unread) +
                                       ": there is nothing to merge")};
      }
      ThreadMergeWalk walk(text, facts, dependence, factors,
                           knobs.merge_layout == MergeLayout::kConsecutive);
      rewriter.ReplaceText(kernel.file_range(body->getSourceRange()), walk.body(body));
      // The block shrinks N times: a bound on its threads left as it was would hold each merged
      // thread to the registers of N threads.
      text.scale_launch_bounds(*function, '/', factors.x * factors.y, rewriter);
      const ThreadMergeStats& stats = walk.stats();
      outcome.stats.replicated += stats.replicated;
      outcome.stats.predicated += stats.predicated;
      outcome.stats.shared_loads.insert(outcome.stats.shared_loads.end(),
                                        stats.shared_loads.begin(), stats.shared_loads.end());
    }
    outcome.rewrite = {true, rewritten_source(kernel, rewriter), ""};
  } catch (const MergeRefusal& refused) {
    outcome.rewrite = {false, "", refused.message};
  }
  return outcome;
}

class ThreadMerge : public Transformation {
 public:
  std::vector<std::string> knobs() const override {
    return {"thread_merge_x", "thread_merge_y", "merge_layout"};
  }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = knob.base + " takes no target; it merges every launched kernel";
      return verdict;
    }
    if (knob.base == "merge_layout") {
      const KnobVerdict x = this->verdict(kernel, {"thread_merge_x", ""});
      const KnobVerdict y = this->verdict(kernel, {"thread_merge_y", ""});
      verdict.applies = x.applies || y.applies;
      verdict.reason = verdict.applies
                           ? "where a merged thread's copies lie: a block apart (strided) or "
                             "next to each other (consecutive)"
                           : "no thread merge applies: " + x.reason + "; " + y.reason;
      return verdict;
    }
    // Legality does not depend on the factor: the smallest one answers for all.
    SourceKnobs probe;
    (knob.base == "thread_merge_x" ? probe.thread_merge_x : probe.thread_merge_y) = 2;
    const Outcome outcome = merge(kernel, probe);
    verdict.applies = outcome.rewrite.ok;
    if (!verdict.applies) {
      verdict.reason = outcome.rewrite.message;
      return verdict;
    }
    const char axis = knob.base.back();
    verdict.reason = "one thread does the work of N along " + std::string(1, axis) +
                     "; statements written per copy: " + std::to_string(outcome.stats.replicated) +
                     ", conditions predicated: " + std::to_string(outcome.stats.predicated) +
                     ", loads the copies share in registers: " +
                     std::to_string(outcome.stats.shared_loads.size());
    for (const clang::Expr* load : outcome.stats.shared_loads) {
      verdict.places.push_back(kernel.place(load));
    }
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override {
    return knobs.thread_merge_x != 1 || knobs.thread_merge_y != 1;
  }

  std::string key(const SourceKnobs& knobs) const override {
    return "thread_merge=" + std::to_string(knobs.thread_merge_x) + "," +
           std::to_string(knobs.thread_merge_y) +
           (knobs.merge_layout == MergeLayout::kConsecutive ? ",consecutive" : ",strided");
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    return merge(kernel, knobs).rewrite;
  }
};

const TransformationRegistrar kRegistrar{30, std::make_unique<ThreadMerge>()};

}  // namespace
}  // namespace gputune::engine
