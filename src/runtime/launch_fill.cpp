#include "runtime/launch_fill.h"

#include <algorithm>
#include <cmath>

namespace gputune::runtime {
namespace {

double blocks(const LaunchGeometry& launch) {
  return 1.0 * launch.grid[0] * launch.grid[1] * launch.grid[2];
}

}  // namespace

double launch_fill(const std::vector<LaunchGeometry>& launches, int sm_count) {
  if (launches.empty() || sm_count <= 0) return 1;
  double most = 0;
  for (const LaunchGeometry& launch : launches) most = std::max(most, blocks(launch));
  if (most <= 0) return 1;
  return most / (std::ceil(most / sm_count) * sm_count);
}

}  // namespace gputune::runtime
