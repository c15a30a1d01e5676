#pragma once
// Which measured configs of one workload (kernel, device, problem) a release keeps, and in what
// order. docs/release-format.md states the rule; kNoiseRule is the text a release records.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gputune {

// One config's measurement at one workload: an ok, checked, timed attempt.
struct MeasuredConfig {
  std::string config_json;  // canonical (keys sorted)
  uint64_t config_index = 0;
  double median_ms = 0;
  double spread = 0;  // relative, as the store records it
  int registers = 0, shared_bytes = 0;
  bool is_baseline = false;
  std::string provenance;
};

struct KeptChoice {
  int rank = 0;  // 0: the choice
  MeasuredConfig candidate;
  std::optional<double> speedup_over_baseline;  // baseline median / this median
  std::optional<double> margin_to_runner_up;    // rank 0 only
};

extern const char* const kNoiseRule;

// Whether `other` is within the measured noise of `reference`: no slower than
// reference * (1 + max(2 * spread of either, 1%)).
bool within_noise(const MeasuredConfig& other, const MeasuredConfig& reference);

// The best candidate and those within its noise, fastest first, at most `top`; the baseline
// comes first instead of a best that does not beat it by more than the noise. Ties in median
// are broken by config_index, so the order never depends on the input's.
std::vector<KeptChoice> keep_choices(std::vector<MeasuredConfig> candidates, int top);

}  // namespace gputune
