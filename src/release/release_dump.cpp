#include "release/release_dump.h"

#include <cstdio>
#include <optional>

#include "core/config_codec.h"
#include "gputune/error.h"

namespace gputune {
namespace {

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string optional_text(const std::optional<double>& value, const char* pattern,
                          double scale = 1) {
  return value ? format(pattern, *value * scale) : "-";
}

// A problem value as the codec writes it: 4096, not 4096.000000.
std::string number_text(double value) {
  const std::string json = problem_to_json({{"v", value}});  // {"v":4096}
  return json.substr(5, json.size() - 6);
}

// "k=1024 m=1024 n=1024" from {"k":1024,"m":1024,"n":1024}.
std::string problem_text(const std::string& json) {
  std::string out;
  for (const auto& [name, value] : problem_from_json(json).value_or(ProblemValues{})) {
    out += (out.empty() ? "" : " ") + name + "=" + number_text(value);
  }
  return out;
}

std::string config_assignments(const std::string& json) {
  std::string out;
  for (const auto& [name, value] : config_from_json(json).value_or(Config{})) {
    out += (out.empty() ? "" : " ") + name + "=" + symbol_text(value);
  }
  return out;
}

}  // namespace

std::string release_dump(const Release& release) {
  std::string out;
  // Ids are positions (release-format.md); one that is not names a row the file lacks.
  const auto row = [&](const auto& table, int64_t id, const char* what) -> const auto& {
    if (id < 1 || static_cast<uint64_t>(id) > table.size()) {
      throw Error(ErrorCode::kSpec, std::string("a choice names ") + what + " " +
                                        std::to_string(id) + ", which the release lacks (" +
                                        std::to_string(table.size()) +
                                        " rows): a damaged release database");
    }
    return table[static_cast<size_t>(id - 1)];
  };
  for (const ReleaseChoice& c : release.choices) {
    const ReleaseKernel& kernel = row(release.kernels, c.kernel_id, "kernel");
    const ReleaseDevice& device = row(release.devices, c.device_id, "device");
    const ReleaseConfig& config = row(release.configs, c.config_id, "config");
    out += kernel.name + " | " + device.name + " sm_" +
           std::to_string(device.cc_major * 10 + device.cc_minor) + " " +
           std::to_string(device.sm_count) + "SM nvrtc " + device.toolchain + " | " +
           problem_text(c.problem_json) + " | #" + std::to_string(c.rank) + " | " +
           config_assignments(config.config_json) + (config.is_baseline ? " (baseline)" : "") +
           " | " + format("%.6f ms", c.median_ms) + " | spread " +
           format("%.1f%%", c.spread * 100) + " | speedup " +
           optional_text(c.speedup_over_baseline, "%.3fx") + " | margin " +
           optional_text(c.margin_to_runner_up, "%+.1f%%", 100) + "\n";
  }
  return out;
}

}  // namespace gputune
