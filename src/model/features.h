#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/occupancy.h"
#include "model/launch_shape.h"
#include "space/problem.h"
#include "space/search_space.h"

namespace gputune {

// What a compiled variant uses, for the resource features.
struct ResourceUsage {
  int registers = 0, shared_bytes = 0, spill_bytes = 0;
  int threads_per_block = 0;  // 0: unknown, taken as 256
};

// Blocks of a variant that one SM holds at once (core/occupancy.h), from its registers, shared
// memory (static and dynamic) and block size; at least 1 for a launchable block. `limits`: the
// GPU's (sm_limits(device)); sm_90's where the GPU is not known.
// Registers 0 (not compiled yet) count as unknown: only the thread and shared limits apply.
int resident_blocks(const ResourceUsage& usage, int dynamic_shared_bytes = 0,
                    const SmLimits& limits = documented_sm_limits(9, 0));

// Fraction of an SM's warp slots that a variant's blocks can fill, from its registers, shared
// memory and block size (core/occupancy.h).
double occupancy_estimate(const ResourceUsage& usage,
                          const SmLimits& limits = documented_sm_limits(9, 0));

// Turns configs into model features. Columns: one per numeric dimension (log2 when every
// value of the dimension is a positive power of two, else the raw value), one per value of a
// symbolic dimension (one-hot), log2 of each problem value, then, only for a map built with
// `resources`, registers, shared KiB, log2(1 + spill bytes) and the occupancy estimate.
// A map is built for one purpose: a search ranks configs that are not compiled yet, so it
// uses a map without resources for training and prediction alike; a map with resources is for
// ranking variants that are all compiled (compile_all) and requires them on every row.
class FeatureMap {
 public:
  FeatureMap(const SearchSpace& space, std::vector<std::string> problem_names,
             bool resources = false);

  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::string>& problem_names() const { return problem_names_; }

  // `problem_values` in the order of problem_names(). Throws Error(kUsage) when the map has
  // resources and none are given.
  std::vector<double> row(uint64_t index, const std::vector<double>& problem_values,
                          const ResourceUsage* resources = nullptr) const;
  // A config as JSON, as measurements of any workload of the spec carry it; nullopt when it
  // lacks a dimension or holds a value the dimension cannot encode (an unknown symbol).
  std::optional<std::vector<double>> row_from_json(const std::string& config_json,
                                                   const std::vector<double>& problem_values,
                                                   const ResourceUsage* resources = nullptr) const;

 private:
  struct Column {
    size_t dimension;
    bool log2 = false;
    bool one_hot = false;
    std::string symbol;  // one_hot: the value's text
  };
  void append_rest(const std::vector<double>& problem_values, const ResourceUsage* resources,
                   std::vector<double>* out) const;

  const SearchSpace* space_;
  std::vector<std::string> problem_names_;
  bool resources_;
  std::vector<Column> columns_;       // parameter columns
  std::vector<size_t> first_column_;  // per dimension
  std::vector<std::string> names_;
};

// The one place that reads launch geometry out of a Variant (blocks summed over its launches).
LaunchShape launch_shape(const Variant& variant);

// Evaluates the spec's launch expressions for any config at any problem values; keeps one
// Problem per set of problem values it was asked about.
LaunchOf launch_of(const Spec& spec);

// Launch-geometry features of one config at one workload: they say how the config's blocks
// fill the GPU at that problem size, which is what carries across sizes (a tile that leaves
// half the SMs idle at a small size fills them at a large one). `resources` may be null
// (not compiled anywhere yet); sm_count > 0; `limits` as for resident_blocks.
std::vector<double> geometry_features(const LaunchShape& shape, const ResourceUsage* resources,
                                      int sm_count,
                                      const SmLimits& limits = documented_sm_limits(9, 0));
const std::vector<std::string>& geometry_feature_names();

// The index of a config given as JSON in `space`; nullopt when a value is not in the space.
std::optional<uint64_t> index_from_json(const SearchSpace& space, const std::string& config_json);

// log2 of positive values, the value itself otherwise: how problem values become features.
double problem_feature(double value);

}  // namespace gputune
