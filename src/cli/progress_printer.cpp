#include "cli/progress_printer.h"

#include <unistd.h>

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

// "[measuring 12/864] 2 failed best 0.1234 ms (A=1) 3.1/s ETA 4 min 35 s"
std::string progress_line(const SearchProgress& p, double wall_s) {
  std::string line = std::string("[") + phase_name(p.phase);
  if (p.total > 0) line += " " + std::to_string(p.done) + "/" + std::to_string(p.total);
  line += "]";
  if (p.failed) line += " " + std::to_string(p.failed) + " failed";
  if (p.best_ms > 0) {
    char best[64];
    std::snprintf(best, sizeof best, " best %.4f ms", p.best_ms);
    line += best + std::string(" (") + config_text(p.best_config) + ")";
  }
  const double rate = p.elapsed_s > 0 ? p.measured / p.elapsed_s : 0;
  if (rate > 0) {
    char speed[64];
    std::snprintf(speed, sizeof speed, " %.1f/s", rate);
    line += speed;
    if (p.total > p.done) {
      line += " ETA " + duration_text(static_cast<double>(p.total - p.done) / rate);
    }
  }
  return line + " " + duration_text(wall_s);
}

}  // namespace

ProgressPrinter::ProgressPrinter(bool enabled)
    : ProgressPrinter(enabled, stderr, isatty(STDERR_FILENO) != 0) {}

ProgressPrinter::ProgressPrinter(bool enabled, std::FILE* out, bool terminal)
    : enabled_(enabled), terminal_(terminal), out_(out), start_(std::chrono::steady_clock::now()) {}

ProgressPrinter::~ProgressPrinter() {
  if (drew_ && terminal_) std::fputc('\n', out_);
}

double ProgressPrinter::since_start_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressPrinter::operator()(const SearchProgress& p) {
  if (!enabled_) return;
  const double now_s = since_start_s();
  const bool new_phase = !printed_any_ || p.phase != last_phase_;
  const bool finished = p.total > 0 && p.done >= p.total && p.done != last_done_;
  const double interval = terminal_ ? 0.2 : 5.0;
  if (!new_phase && !finished && now_s - last_print_s_ < interval) return;
  last_print_s_ = now_s;
  last_phase_ = p.phase;
  last_done_ = p.done;
  printed_any_ = true;

  const std::string line = progress_line(p, now_s);
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", line.c_str());
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
  drew_ = true;
}

}  // namespace gputune::cli
