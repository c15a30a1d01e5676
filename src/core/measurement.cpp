#include "gputune/measurement.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gputune {

namespace {
// Linear interpolation between order statistics, as numpy's default percentile.
double percentile(std::vector<double> sorted, double q) {
  std::sort(sorted.begin(), sorted.end());
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}
}  // namespace

double Measurement::median_ms() const {
  if (samples_ms.empty()) return std::numeric_limits<double>::quiet_NaN();
  return percentile(samples_ms, 0.5);
}

double Measurement::spread() const {
  if (samples_ms.size() < 2) return 0;
  double median = median_ms();
  if (median <= 0) return 0;
  return (percentile(samples_ms, 0.9) - percentile(samples_ms, 0.1)) / median;
}

}  // namespace gputune
