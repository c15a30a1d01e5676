#include "space/fused_launches.h"

#include <algorithm>

namespace gputune {
namespace {

// Where the engine's fuse knob is among the space's dimensions; null without it.
const EngineKnobs::Knob* fuse_knob(const EngineKnobs& engine) {
  for (const EngineKnobs::Knob& knob : engine.knobs()) {
    if (knob.transform->name == "fuse") return &knob;
  }
  return nullptr;
}

int number_at(const SearchSpace& space, size_t dimension, const std::vector<size_t>& digits) {
  const Value& value = space.dimensions()[dimension].values[digits[dimension]];
  return value.is_number() ? static_cast<int>(value.as_number()) : 0;
}

}  // namespace

std::vector<engine::LaunchBinding> launch_bindings(const Spec& spec, const Variant& variant) {
  std::vector<engine::LaunchBinding> bindings;
  for (const Launch& launch : variant.launches) {
    engine::LaunchBinding& binding = bindings.emplace_back();
    binding.kernel = kernel_function_name(variant.kernel_name_expressions[launch.kernel]);
    for (size_t a : launch.arguments) binding.arguments.push_back(spec.arguments[a].name);
    binding.block = launch.block;
    binding.grid = launch.grid;
  }
  return bindings;
}

int fuse_value(const EngineKnobs& engine, const std::vector<Value>& values) {
  const EngineKnobs::Knob* knob = fuse_knob(engine);
  if (!knob || !values[knob->dimension].is_number()) return 0;
  return static_cast<int>(values[knob->dimension].as_number());
}

void fuse_launches(int fuse, Variant* variant) {
  if (fuse < 2 || static_cast<size_t>(fuse) > variant->launches.size()) return;
  std::vector<Launch>& launches = variant->launches;
  Launch fused = launches[0];
  fused.arguments.clear();
  for (int l = 0; l < fuse; ++l) {
    for (size_t a : launches[l].arguments) {
      if (std::find(fused.arguments.begin(), fused.arguments.end(), a) == fused.arguments.end()) {
        fused.arguments.push_back(a);
      }
    }
  }
  const std::string name =
      kernel_function_name(variant->kernel_name_expressions[launches[0].kernel]) +
      engine::kFusedSuffix;
  fused.kernel = variant->kernel_name_expressions.size();
  variant->kernel_name_expressions.push_back(name);
  launches.erase(launches.begin(), launches.begin() + fuse);
  launches.insert(launches.begin(), fused);
}

void add_fusion_limits(
    const EngineKnobs& engine, SearchSpace* space,
    std::function<std::vector<std::array<uint32_t, 3>>(const std::vector<size_t>&)> blocks) {
  const EngineKnobs::Knob* knob = fuse_knob(engine);
  if (!knob) return;
  const engine::FusionFacts& facts = engine.analysis().fusion;
  const size_t d = knob->dimension;
  const int fusable = facts.fusable;
  if (fusable >= 2) {
    space->add_limit({"fuse more than the " + std::to_string(fusable) +
                          " leading launches the engine can fuse" +
                          (facts.refusal.empty() ? "" : " (" + facts.refusal + ")"),
                      [space, d, fusable](const std::vector<size_t>& digits) {
                        return number_at(*space, d, digits) <= fusable;
                      }});
  }
  std::vector<size_t> others;  // the knobs fusion does not combine with
  for (const EngineKnobs::Knob& other : engine.knobs()) {
    const std::string& name = other.transform->name;
    if (name == kBlockMergeX || name == kBlockMergeY || name == "stage_shared") {
      others.push_back(other.dimension);
    }
  }
  space->add_limit(
      {"set fuse with a block merge or stage_shared (fusion does not combine with them: "
       "each fused stage's threads loop over its tile and halo, already in shared memory)",
       [space, d, others](const std::vector<size_t>& digits) {
         if (number_at(*space, d, digits) < 2) return true;
         for (size_t other : others) {
           const Value& value = space->dimensions()[other].values[digits[other]];
           const auto* transform = find_source_transform(space->dimensions()[other].name);
           if (!is_neutral(*transform, value)) return false;
         }
         return true;
       }});
  space->add_limit({"exceed the " + std::to_string(engine::kStaticSharedBytes) +
                        " bytes of static shared memory a block may declare with the fused "
                        "kernel's intermediates",
                    [&facts, space, d, blocks](const std::vector<size_t>& digits) {
                      const int fuse = number_at(*space, d, digits);
                      if (fuse < 2) return true;
                      const auto launch_blocks = blocks(digits);
                      if (launch_blocks.empty()) return true;
                      return engine::fused_shared_bytes(facts, fuse, launch_blocks[0]) <=
                             engine::kStaticSharedBytes;
                    }});
}

}  // namespace gputune
