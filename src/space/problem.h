#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config_codec.h"
#include "core/expression.h"
#include "engine/engine.h"
#include "gputune/results.h"
#include "gputune/spec.h"
#include "space/search_space.h"

namespace gputune {

class EngineKnobs;

// One kernel launch of a variant, at its resolved sizes.
struct Launch {
  size_t kernel = 0;  // index into Variant::kernel_name_expressions
  // Indices into Spec::arguments, in the kernel's order; constant arguments are not passed.
  std::vector<size_t> arguments;
  std::array<uint32_t, 3> block{1, 1, 1}, grid{1, 1, 1};
  uint32_t dynamic_shared_bytes = 0;
  // Passed after `arguments` as `unsigned int`s: the original grid's x and y extents of a
  // block-merged kernel (core/launch_merge.h), for the dimensions it merged.
  std::vector<uint32_t> trailing_arguments;
};

// Everything needed to compile and launch one config: one module, one or more launches.
struct Variant {
  uint64_t index = 0;
  std::string config;  // JSON object of the values
  // The kernels the launches use, each once, with template arguments substituted.
  std::vector<std::string> kernel_name_expressions;
  std::vector<std::string> compile_options;  // -DNAME=value, --maxrregcount=..., ...
  std::string prelude;                       // source placed before the kernel (transforms)
  std::vector<Launch> launches;              // in order: those whose condition holds
  std::vector<double> scalar_arguments;      // value of each scalar argument, in spec order
  // The kernel file as the transformation engine rewrote it for this config (docs/engine.md);
  // empty where every engine knob is neutral: the spec's own source is compiled.
  std::string source;
  // Why the engine cannot rewrite the kernel for this config ("k.cu:12:5: thread_merge_y:
  // ..."): the variant is a compile error with this message, and NVRTC is not called.
  std::string refusal;
};

// The reference kernel (Spec::reference_kernel) at fixed problem values: one launch of kernel
// 0 of a module compiled from its own source with `compile_options`.
struct ReferenceLaunch {
  std::string name;  // ReferenceKernelSpec::name(), for messages
  std::string kernel_name_expression;
  std::vector<std::string> compile_options;  // its defines and options, its folder included
  Launch launch;
};

// A resolved argument buffer.
struct BufferShape {
  std::string name;
  ScalarType type;
  uint64_t count = 0;
};

// The most threads a block may have on every GPU since compute capability 2.0, and so on every
// architecture NVRTC compiles for.
constexpr uint32_t kMaxThreadsPerBlock = 1024;

// A spec at fixed problem values: its space and how to turn a config into a Variant.
// Construction evaluates every expression once and reports problems as Error(kSpec) with the
// spec location, e.g. an empty space after constraints or a non-integer launch dimension.
// Configs with a launch of more than `max_threads_per_block` threads are not in the space: its
// valid() rejects them as a constraint would, so no strategy proposes them.
class Problem {
 public:
  explicit Problem(Spec spec);
  // The spec at other problem values: each value given here replaces its expression, the
  // others are evaluated as written (they may use the given ones). Names the spec lacks are
  // ignored.
  Problem(Spec spec, const ProblemValues& at, uint32_t max_threads_per_block = kMaxThreadsPerBlock);
  ~Problem();

  const Spec& spec() const { return spec_; }
  const SearchSpace& space() const { return *space_; }
  const ProblemValues& problem_values() const { return problem_values_; }
  std::string problem_json() const;  // {"n":8192}
  uint64_t baseline_index() const { return baseline_index_; }
  // Why the baseline is not the one the spec gives (Spec::baseline_nearest_valid); "" when it is.
  const std::string& baseline_note() const { return baseline_note_; }
  // Absent without a reference kernel.
  const std::optional<ReferenceLaunch>& reference_launch() const { return reference_launch_; }
  std::vector<BufferShape> buffers() const;  // every buffer argument, in spec order
  // The configs each limit pruned, for the limits that pruned any; walks the space.
  std::vector<PrunedConfigs> pruned() const;  // estimated on a product too large to walk
  // Why the space leaves a config out ("fails constraint 2 (TILE % MERGE == 0)", "would exceed
  // 1024 threads per block"); "" for a valid config.
  std::string why_pruned(uint64_t index) const;
  // Why the transformation engine's knobs keep their neutral values (Clang cannot parse the
  // kernel: its first error), for one warning; "" otherwise.
  const std::string& engine_note() const;
  // The engine's knobs of the space and its verdicts on them at the baseline's macros.
  const EngineKnobs& engine_knobs() const;
  // The engine's input for a config (its macros, the kernels it launches).
  engine::KernelUnit kernel_unit(uint64_t index) const;
  // The engine's verdicts on `knobs` (as a spec names them: "unroll(k_loop)") at the
  // baseline's macros.
  engine::Analysis engine_analysis(const std::vector<std::string>& knobs) const;

  // Throws Error(kSpec) for a launch dimension or scalar that is not a positive integer etc.
  Variant variant(uint64_t index) const;
  // variant() without the engine's rewrite (no source, no refusal): its launches as merged.
  // Cheap, for the geometry of many configs (the cost model's features).
  Variant geometry(uint64_t index) const;
  double bytes(uint64_t index) const;  // metrics; 0 when the spec gives none
  double flops(uint64_t index) const;

 private:
  ReferenceLaunch resolve_reference() const;
  void check_given_sizes() const;
  // The variant's macros and options (parameters, defines, the spec's options, the kernel's
  // folder); the caller holds the scope's lock with the config set.
  std::vector<std::string> compile_options(const std::vector<Value>& values,
                                           const std::string& config) const;
  // `unfused` (where given) receives the launches before `fuse` made one of the first ones.
  Variant make_variant(uint64_t index, bool with_source,
                       std::vector<engine::LaunchBinding>* unfused = nullptr) const;
  // The launches of a config whose engine knobs merge threads or blocks; false (with the
  // variant's refusal) where they cannot be merged.
  bool merge(const std::vector<Value>& values, Variant* v) const;
  // The engine's source of a config whose engine knobs are not neutral.
  void rewrite(const std::vector<Value>& values, std::vector<engine::LaunchBinding> unfused,
               Variant* v) const;

  Spec spec_;
  ProblemValues problem_values_;
  std::unique_ptr<SearchSpace> space_;
  uint64_t baseline_index_ = 0;
  std::string baseline_note_;
  std::optional<ReferenceLaunch> reference_launch_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gputune
