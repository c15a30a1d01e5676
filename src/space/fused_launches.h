#pragma once
// Loop fusion's launches (docs/engine.md, "fuse"): what the engine learns of a variant's launch
// sequence, the launch of the fused kernel that replaces the first `fuse` launches, and the
// limits that keep the space to the fusions the engine can make.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/engine.h"
#include "gputune/spec.h"
#include "space/engine_knobs.h"
#include "space/problem.h"

namespace gputune {

// The variant's launches as the engine's fusion sees them: each kernel's function and the
// spec's argument bound to each of its parameters.
std::vector<engine::LaunchBinding> launch_bindings(const Spec& spec, const Variant& variant);

// The fuse value of a config (0 without the knob).
int fuse_value(const EngineKnobs& engine, const std::vector<Value>& values);

// Replaces the first `fuse` launches with one launch of the fused kernel (the first launch's
// block and grid, each spec argument they pass once, in the order of first appearance). Leaves
// the variant as it is where fuse < 2 or the variant has fewer launches (the engine refuses).
void fuse_launches(int fuse, Variant* variant);

// Limits on fuse: no more launches than the engine's analysis fuses at the baseline, no thread
// or block merge or stage_shared beside it, and the fused kernel's shared arrays within the
// static shared memory of a block (`blocks`: the config's launch blocks as the spec writes them).
void add_fusion_limits(
    const EngineKnobs& engine, SearchSpace* space,
    std::function<std::vector<std::array<uint32_t, 3>>(const std::vector<size_t>&)> blocks);

}  // namespace gputune
