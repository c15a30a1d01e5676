// block_merge_x, block_merge_y: one real block holds N neighbouring blocks of the naive kernel
// along x or y (its sub-blocks): the launch's grid shrinks by N, its block grows by N, and the
// kernel receives the naive grid's extent as a trailing parameter. Shared arrays whose contents
// depend on the block get one copy per sub-block; the others are filled once, by sub-block 0,
// and serve all N (docs/engine.md).
#include <clang/Rewrite/Core/Rewriter.h>

#include "engine/block_merge_walk.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

struct Outcome {
  Rewrite rewrite;
  BlockMergeStats stats;
};

std::string knob_name(int x, int y) {
  if (x > 1 && y > 1) return "block_merge_x/y";
  return x > 1 ? "block_merge_x" : "block_merge_y";
}

Outcome merge(const ParsedKernel& kernel, const SourceKnobs& knobs) {
  const std::string knob = knob_name(knobs.block_merge_x, knobs.block_merge_y);
  Outcome outcome;
  if (knobs.block_merge_x < 1 || knobs.block_merge_y < 1) {
    outcome.rewrite = {false, "", knob + ": the factors must be at least 1"};
    return outcome;
  }
  try {
    KernelText text(kernel, knob);
    const CallFacts facts(kernel, knob);
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      BlockMergeWalk walk(text, facts, *function, knobs.block_merge_x, knobs.block_merge_y);
      const auto* body = llvm::cast<clang::CompoundStmt>(function->getBody());
      rewriter.ReplaceText(kernel.file_range(body->getSourceRange()), walk.body());
      const clang::SourceLocation close = function->getFunctionTypeLoc().getRParenLoc();
      if (close.isInvalid() || !kernel.in_main_file(close) || close.isMacroID()) {
        throw MergeRefusal{refusal(kernel.place(function), knob,
                                   "the kernel's parameter list is not written in the file")};
      }
      rewriter.InsertTextBefore(close, walk.parameters(function->getNumParams() > 0));
      // The block grows N times: a bound on its threads grows with it, or the launch fails.
      text.scale_launch_bounds(*function, '*', knobs.block_merge_x * knobs.block_merge_y, rewriter);
      outcome.stats.shared.insert(outcome.stats.shared.end(), walk.stats().shared.begin(),
                                  walk.stats().shared.end());
      outcome.stats.replicated.insert(outcome.stats.replicated.end(),
                                      walk.stats().replicated.begin(),
                                      walk.stats().replicated.end());
    }
    outcome.rewrite = {true, rewritten_source(kernel, rewriter), ""};
  } catch (const MergeRefusal& refused) {
    outcome.rewrite = {false, "", refused.message};
  }
  return outcome;
}

std::string names(const std::vector<const clang::VarDecl*>& variables) {
  std::string out;
  for (const clang::VarDecl* variable : variables) {
    out += (out.empty() ? "" : ", ") + variable->getNameAsString();
  }
  return out;
}

class BlockMerge : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {"block_merge_x", "block_merge_y"}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = knob.base + " takes no target; it merges every launched kernel";
      return verdict;
    }
    // Legality does not depend on the factor: the smallest one answers for all.
    SourceKnobs probe;
    (knob.base == "block_merge_x" ? probe.block_merge_x : probe.block_merge_y) = 2;
    const Outcome outcome = merge(kernel, probe);
    verdict.applies = outcome.rewrite.ok;
    if (!verdict.applies) {
      verdict.reason = outcome.rewrite.message;
      return verdict;
    }
    verdict.reason = "one block does the work of N along " + std::string(1, knob.base.back());
    if (!outcome.stats.shared.empty()) {
      verdict.reason += "; shared arrays filled once for all N: " + names(outcome.stats.shared);
    }
    if (!outcome.stats.replicated.empty()) {
      verdict.reason +=
          "; shared arrays with one copy per merged block: " + names(outcome.stats.replicated);
    }
    for (const clang::VarDecl* variable : outcome.stats.shared) {
      verdict.places.push_back(kernel.place(variable));
    }
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override {
    return knobs.block_merge_x != 1 || knobs.block_merge_y != 1;
  }

  std::string key(const SourceKnobs& knobs) const override {
    return "block_merge=" + std::to_string(knobs.block_merge_x) + "," +
           std::to_string(knobs.block_merge_y);
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    return merge(kernel, knobs).rewrite;
  }
};

const TransformationRegistrar kRegistrar{20, std::make_unique<BlockMerge>()};

}  // namespace
}  // namespace gputune::engine
