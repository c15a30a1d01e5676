#include "release/keep_rule.h"

#include <algorithm>

namespace gputune {

const char* const kNoiseRule =
    "per kernel, device and problem: the fastest ok config by median, and every config whose "
    "median <= best * (1 + max(2 * spread_best, 2 * spread_config, 0.01)), fastest first, at most "
    "--top; the baseline is rank 0 unless the best beats it by more than that noise";

bool within_noise(const MeasuredConfig& other, const MeasuredConfig& reference) {
  const double noise = std::max({2 * reference.spread, 2 * other.spread, 0.01});
  return other.median_ms <= reference.median_ms * (1 + noise);
}

std::vector<KeptChoice> keep_choices(std::vector<MeasuredConfig> candidates, int top) {
  std::vector<KeptChoice> out;
  if (candidates.empty() || top <= 0) return out;
  std::sort(candidates.begin(), candidates.end(),
            [](const MeasuredConfig& a, const MeasuredConfig& b) {
              if (a.median_ms != b.median_ms) return a.median_ms < b.median_ms;
              return a.config_index < b.config_index;
            });
  const MeasuredConfig& best = candidates.front();
  const auto baseline = std::find_if(candidates.begin(), candidates.end(),
                                     [](const MeasuredConfig& c) { return c.is_baseline; });

  std::vector<const MeasuredConfig*> kept;
  if (baseline != candidates.end() && !best.is_baseline && within_noise(*baseline, best)) {
    kept.push_back(&*baseline);
  }
  for (const MeasuredConfig& c : candidates) {
    if (static_cast<int>(kept.size()) >= top) break;
    if (!kept.empty() && kept.front() == &c) continue;
    // No early exit: a slower config with a wider spread may still be within the noise.
    if (!within_noise(c, best)) continue;
    kept.push_back(&c);
  }

  for (const MeasuredConfig* c : kept) {
    KeptChoice choice;
    choice.rank = static_cast<int>(out.size());
    choice.candidate = *c;
    if (baseline != candidates.end()) {
      choice.speedup_over_baseline = baseline->median_ms / c->median_ms;
    }
    out.push_back(std::move(choice));
  }
  // The runner-up is the fastest other config measured, kept or not.
  const MeasuredConfig* first = kept.front();
  const auto runner_up = std::find_if(candidates.begin(), candidates.end(),
                                      [&](const MeasuredConfig& c) { return &c != first; });
  if (runner_up != candidates.end()) {
    out.front().margin_to_runner_up = runner_up->median_ms / first->median_ms - 1;
  }
  return out;
}

}  // namespace gputune
