#include "strategy/acquisition.h"

#include <algorithm>
#include <cmath>

namespace gputune {

double expected_improvement(double best, double mean, double stddev, double margin) {
  const double gain = best - mean - margin;
  if (stddev <= 1e-12) return std::max(gain, 0.0);
  const double z = gain / stddev;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  return gain * cdf + stddev * pdf;
}

bool ok_log_time(const Measurement& m, double* log_ms) {
  if (m.status != Status::kOk) return false;
  const double median = m.median_ms();
  if (!(median > 0)) return false;
  *log_ms = std::log(median);
  return true;
}

}  // namespace gputune
