#pragma once
// Loop fusion's analysis (engine-internal): the unit's launch sequence as stages, each launch's
// kernel checked to be a parallel loop (one thread per output, no thread reading what another
// writes), the dependence distances between a stage's writes and later stages' reads from the
// affine indices, and the halo each stage recomputes at the block's border (docs/engine.md,
// "fuse").
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/access_analysis.h"

namespace gputune::engine {

// A read of an array an earlier stage of the chain writes: `t1[(y+dy)*nx + x+dx]` against the
// writer's `t1[y*nx + x]`.
struct ChainRead {
  const clang::Expr* expression = nullptr;  // the access
  std::string array;                        // the spec's argument
  int writer = 0;                           // the stage that writes it
  int dx = 0, dy = 0;
};

// A plain `array[index] = value` store of a stage.
struct StageWrite {
  const clang::Expr* expression = nullptr;  // the access, the assignment's left side
  const clang::BinaryOperator* assignment = nullptr;
  std::string array;
};

// One launch of the sequence as a stage of a fused kernel.
struct FusionStage {
  const clang::FunctionDecl* function = nullptr;
  const LaunchBinding* binding = nullptr;
  std::string refusal;  // why it cannot be a stage ("" when it can), at refusal_place
  SourcePlace refusal_place;
  // The spec's argument of each array it writes, and the write's index over the thread and
  // block ids with the kernel's scalar parameters spelled as the spec's arguments.
  std::map<std::string, Affine> writes;
  std::vector<StageWrite> stores;
  std::vector<ChainRead> chain_reads;  // filled as the chain grows
  std::vector<Access> accesses;
};

struct FusionAnalysis {
  std::vector<FusionStage> stages;  // one per launch of the unit
  FusionFacts facts;                // facts.refusal is refusal_place: refusal_reason
  SourcePlace refusal_place;
  std::string refusal_reason;
};

FusionAnalysis analyse_fusion(const ParsedKernel& kernel);

// The __global__ function `name` defined in the kernel file; null where there is none.
const clang::FunctionDecl* find_kernel_function(const ParsedKernel& kernel,
                                                const std::string& name);

}  // namespace gputune::engine
