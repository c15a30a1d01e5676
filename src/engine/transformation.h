#pragma once
// One transformation of the engine (engine-internal: includes Clang through ParsedKernel).
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/parsed_kernel.h"

namespace gputune::engine {

// A knob as the spec writes it: "unroll(k_loop)" is base "unroll", target "k_loop".
struct KnobName {
  std::string base, target;
  static KnobName parse(const std::string& knob);
};

class Transformation {
 public:
  virtual ~Transformation() = default;
  // The knobs it answers for, as the spec names them without a target ("thread_merge_y").
  virtual std::vector<std::string> knobs() const = 0;
  // Whether `knob` (one of knobs(), perhaps with a target) can leave its neutral value on this
  // kernel, and why not; names the statements it would change or that stop it.
  virtual KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const = 0;
  // Whether these knob values ask anything of it.
  virtual bool active(const SourceKnobs& knobs) const = 0;
  // Its knob values as text, part of the memo's key.
  virtual std::string key(const SourceKnobs& knobs) const = 0;
  // The kernel file's new text; not ok with the refusal where the values are not legal here.
  virtual Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const = 0;
};

// Every transformation, in the order a variant's rewrite applies them.
const std::vector<const Transformation*>& transformations();

// Registers a transformation from its own file: `const TransformationRegistrar kRegistrar{
// 30, std::make_unique<ThreadMerge>()};`; rank orders them (5 stage_shared, 10 pad_shared, 20 block
// merge, 30 thread merge, 35 vector_width, 40 unroll, 45 partition_offset, 50 launch_bounds;
// 1 fuse, first, so the others apply to the fused kernel too).
struct TransformationRegistrar {
  TransformationRegistrar(int rank, std::unique_ptr<Transformation> transformation);
};

}  // namespace gputune::engine
