#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "gputune/results.h"

namespace gputune::cli {

namespace {
std::string duration_text(double seconds) {
  char buffer[32];
  if (seconds < 90) {
    std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
  } else if (seconds < 5400) {
    std::snprintf(buffer, sizeof buffer, "%.0f min", seconds / 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f h", seconds / 3600);
  }
  return buffer;
}
}  // namespace

ProgressPrinter::ProgressPrinter(bool enabled)
    : enabled_(enabled), terminal_(isatty(STDERR_FILENO)) {}

ProgressPrinter::~ProgressPrinter() {
  if (drew_ && terminal_) std::fputc('\n', stderr);
}

void ProgressPrinter::operator()(const SearchProgress& p) {
  if (!enabled_) return;
  bool finished = p.done >= p.total;
  double interval = terminal_ ? 0.2 : 5.0;
  if (!finished && p.elapsed_s - last_print_s_ < interval && p.done > 0) return;
  last_print_s_ = p.elapsed_s;

  double rate = p.elapsed_s > 0 ? p.measured / p.elapsed_s : 0;
  std::string line = "[" + std::to_string(p.done) + "/" + std::to_string(p.total) + "]";
  if (p.failed) line += " " + std::to_string(p.failed) + " failed";
  if (p.best_ms > 0) {
    char best[64];
    std::snprintf(best, sizeof best, " best %.4f ms", p.best_ms);
    line += best + std::string(" (") + config_text(p.best_config) + ")";
  }
  if (rate > 0) {
    char speed[64];
    std::snprintf(speed, sizeof speed, " %.1f/s", rate);
    line += speed;
    if (!finished && p.total > p.done) {
      line += " ETA " + duration_text(static_cast<double>(p.total - p.done) / rate);
    }
  }
  line += " " + duration_text(p.elapsed_s);
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
  drew_ = true;
}

}  // namespace gputune::cli
