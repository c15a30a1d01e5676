#pragma once
#include <string>

#include "release/release_db.h"

namespace gputune {

// The canonical text of a release, for review as a diff: one line per choice, in the release's
// order (kernel, device, problem, rank), with its config, median, spread, speed-up over the
// baseline and margin to the runner-up; numbers at fixed precision.
std::string release_dump(const Release& release);

}  // namespace gputune
