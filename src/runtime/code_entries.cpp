#include "runtime/code_entries.h"

#include <algorithm>

namespace gputune::runtime {

std::vector<std::string> launch_entries(const std::string& entry,
                                        const std::vector<LaunchGeometry>& launches) {
  std::vector<std::string> names;
  for (size_t start = 0; start < entry.size();) {
    const size_t end = std::min(entry.find(' ', start), entry.size());
    if (end > start) names.push_back(entry.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> kernels, out;
  for (const LaunchGeometry& launch : launches) {
    const auto known = std::find(kernels.begin(), kernels.end(), launch.kernel);
    const size_t which = static_cast<size_t>(known - kernels.begin());
    if (known == kernels.end()) kernels.push_back(launch.kernel);
    out.push_back(which < names.size() ? names[which] : launch.kernel);
  }
  return out;
}

}  // namespace gputune::runtime
