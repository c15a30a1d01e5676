#pragma once
#include <string>

#include "replay/replay.h"

namespace gputune {

// What a recording's relative spec path is relative to: the shipped data root where the spec
// is there (an installed gputune), else the nearest folder above the recording that holds it
// (a checkout's db/recordings/), else the data root (whose error names the path).
std::string recording_root(const std::string& recording_path, const Recording& recording);

}  // namespace gputune
