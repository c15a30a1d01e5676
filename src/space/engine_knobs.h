#pragma once
// The transformation engine's knobs of one spec's space (docs/engine.md): which dimensions
// they are, the engine's input for a config (the kernel file, its macros, the launched
// kernels), the merged launch geometry, and the limits that keep the space to what the engine
// can do with this kernel.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/launch_merge.h"
#include "engine/engine.h"
#include "gputune/spec.h"
#include "space/search_space.h"
#include "transforms/source_transforms.h"

namespace gputune {

class EngineKnobs {
 public:
  // One engine knob of the space.
  struct Knob {
    size_t dimension = 0;
    const SourceTransform* transform = nullptr;
    std::string name;    // as the spec writes it: "unroll(k_loop)"
    std::string target;  // "k_loop"; "" for none
  };

  EngineKnobs(const Spec& spec, const std::vector<Dimension>& dimensions);

  const std::vector<Knob>& knobs() const { return knobs_; }
  bool empty() const { return knobs_.empty(); }
  // Whether every engine knob has its neutral value in the config.
  bool neutral(const std::vector<Value>& values) const;
  bool neutral_at(const std::vector<Dimension>& dimensions,
                  const std::vector<size_t>& digits) const;
  MergeFactors factors(const std::vector<Value>& values) const;
  MergeFactors factors_at(const std::vector<Dimension>& dimensions,
                          const std::vector<size_t>& digits) const;

  // What the engine parses for a variant compiled with `compile_options` (its -D macros and
  // include paths) that launches `kernels` (names as the spec writes them: "k<TILE>").
  // `launches`: the launch sequence before fusion, for `fuse` (the spec's outputs come with it).
  engine::KernelUnit unit(const std::vector<std::string>& compile_options,
                          const std::vector<std::string>& kernels,
                          std::vector<engine::LaunchBinding> launches = {}) const;
  // Whether the spec lists the engine's knob `base` ("fuse").
  bool has(const std::string& base) const;
  // The engine's knob values of a config; `block_threads`: threads per block of each kernel
  // (by its name without template arguments) after merging.
  engine::SourceKnobs source_knobs(const std::vector<Value>& values,
                                   std::map<std::string, uint32_t> block_threads) const;

  // Asks the engine about the knobs whose spec lists values other than the neutral one, at
  // `unit` (the baseline's macros), and adds a limit per knob the engine refuses for this
  // kernel (only the neutral value stays), or one for all of them where Clang cannot parse the
  // kernel; then `note()` says so once. A limit pruning the merge layouts that give the same
  // code (no thread merge) is added too. Call once, before the space is used.
  // `unit` is called only where the engine is asked.
  void add_limits(const std::function<engine::KernelUnit()>& unit, SearchSpace* space,
                  const std::vector<size_t>& baseline_digits);
  // Why the engine's knobs keep their neutral values ("" when the kernel parses).
  const std::string& note() const { return note_; }
  // Why the engine refuses a config's knob values here, from add_limits()' verdicts; "" when
  // it does not.
  std::string refusal(const std::vector<Value>& values) const;
  // The engine's verdicts (empty before add_limits(), or when every knob is neutral).
  const engine::Analysis& analysis() const { return analysis_; }

 private:
  std::string kernel_path_, kernel_source_;
  std::vector<std::string> outputs_;
  std::vector<Knob> knobs_;
  engine::Analysis analysis_;
  std::vector<std::pair<size_t, std::string>> refused_;  // knob index, why
  std::string note_;
};

// "transpose<TILE, PAD>" -> "transpose"; "ns::k" -> "k": the function the engine transforms.
std::string kernel_function_name(const std::string& kernel_name);

}  // namespace gputune
