#include "cli/interrupt.h"

#include <unistd.h>

#include <csignal>

namespace gputune::cli {

namespace {
std::atomic<bool> stop_requested{false};

void on_signal(int signal) {
  if (stop_requested.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  constexpr char kMessage[] =
      "\ngputune: stopping after the variant in flight (again to abort at once)\n";
  ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  (void)ignored;
}
}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  return stop_requested;
}

}  // namespace gputune::cli
