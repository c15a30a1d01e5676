#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config_codec.h"
#include "space/problem.h"
#include "store/store.h"
#include "strategy/strategy.h"

namespace gputune {

// What prior data is matched by (a release's KernelIdentity also pins the source and spec
// hashes): what makes two workloads measurements of the same kernel, whatever their problem values,
// GPU or kernel source version, and wherever or under whatever name their spec file lies: the
// kernel's name (as the spec gives it) and the names of the space's parameters. A version of
// the kernel whose parameters changed is still the same kernel where the parameters it shares
// with this one outnumber those added and dropped together; its configs are read in this
// space's terms (measurements_in_terms_of).
struct PriorKey {
  std::string kernel_name;
  std::vector<std::string> parameters;  // sorted
  Config baseline;  // this space's baseline: the values of parameters another version lacks
};

PriorKey prior_key(const Problem& problem);

// Measurements of a version of `kernel` whose configs name `their_parameters` (sorted) and
// whose baseline config is `their_baseline` (JSON), in `kernel`'s terms: a parameter added
// since takes this space's baseline value (a knob added to a kernel keeps its old behaviour at
// its baseline value), and of the configs with a parameter dropped since only those at that
// version's baseline value are kept, without it. `changes` says what differed ("+TALL -VEC";
// "" for the same parameters). nullopt for another kernel: another name, or parameters that
// differ more than they agree.
std::optional<std::vector<Measurement>> measurements_in_terms_of(
    const PriorKey& kernel, const std::string& their_kernel_name,
    const std::vector<std::string>& their_parameters, const std::string& their_baseline,
    std::vector<Measurement> measurements, std::string* changes = nullptr);

// The sorted parameter names of measured configs (those of the first that parses).
std::vector<std::string> parameters_of(const std::vector<Measurement>& measurements);

// What the store holds for the same kernel under other workloads: the prior data a later
// search learns from. A stored workload's parameters are the keys of its measured configs.
std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const PriorKey& kernel);

}  // namespace gputune
