#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gputune {

// How a config launches at some problem values: what the launch-geometry features (waves,
// tail wave, SM fill) are computed from.
struct LaunchShape {
  double blocks = 0;             // every block of the variant's launches
  double threads_per_block = 0;  // of its largest block
  double dynamic_shared_bytes = 0;
};

// A config's launch shape at the given problem values (by name); nullopt where the spec's
// launch expressions give no valid launch there.
using LaunchOf = std::function<std::optional<LaunchShape>(
    uint64_t index, const std::vector<std::pair<std::string, double>>& problem_values)>;

}  // namespace gputune
