#pragma once
#include <atomic>

namespace gputune::cli {

// The first Ctrl-C (or SIGTERM) asks the search to stop after the variant in flight, so the
// database stays consistent; a second one ends the process at once.
const std::atomic<bool>& install_interrupt_handler();

}  // namespace gputune::cli
