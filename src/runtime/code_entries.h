#pragma once
// Which function of an embedded module each launch calls.
#include <string>
#include <vector>

#include "gputune/runtime.h"

namespace gputune::runtime {

// The lowered name each launch calls: `entry` is the code row's, one lowered name per distinct
// kernel, separated by single spaces, in the order the launches first use them (as the builder
// writes it, docs/release-format.md); a launch beyond the names gets its own kernel name.
std::vector<std::string> launch_entries(const std::string& entry,
                                        const std::vector<LaunchGeometry>& launches);

}  // namespace gputune::runtime
