#include "store/search_record.h"

#include <algorithm>
#include <cmath>

namespace gputune {

double SearchRecord::gpu_idle_share() const {
  const double capacity = measuring_s * static_cast<double>(std::max<int64_t>(gpus, 1));
  if (std::isnan(capacity) || std::isnan(gpu_busy_s) || capacity <= 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return std::clamp(1.0 - gpu_busy_s / capacity, 0.0, 1.0);
}

}  // namespace gputune
