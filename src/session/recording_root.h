#pragma once
#include <string>

#include "replay/replay.h"

namespace gputune {

// The spec file a recording names (its spec_path, relative to the repository root it was made
// in): an absolute path as it is; else the nearest folder at or above the recording that holds
// that relative path (a checkout's db/recordings/, or a folder a user copied the recording and its
// spec into), else the spec's file name beside the recording, else the shipped data root's copy
// (an installed gputune; where it is missing too, the error names that path).
std::string recording_spec_file(const std::string& recording_path, const Recording& recording);

}  // namespace gputune
