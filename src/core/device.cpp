#include "gputune/device.h"

namespace gputune {

std::string DeviceInfo::key() const {
  return name + " sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + " " +
         std::to_string(sm_count) + "SM driver " + std::to_string(driver_version);
}

}  // namespace gputune
