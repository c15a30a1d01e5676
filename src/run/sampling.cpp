#include "run/sampling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>

namespace gputune {
namespace {

// The fewest samples kept when the time budget runs out before min_samples.
constexpr size_t kFewestSamples = 3;
// How far past max_seconds a slow variant may sample to reach min_samples: a bounded cost,
// paid only by variants whose samples take longer than max_seconds / min_samples.
constexpr double kMinSamplesTimeFactor = 3.0;

}  // namespace

bool AdaptiveStopping::warmed_up(double warmup_seconds, bool gpu_hot) const {
  const int needed_ms =
      gpu_hot ? std::min(timing_.hot_warmup_ms, timing_.warmup_ms) : timing_.warmup_ms;
  return warmup_seconds * 1e3 >= needed_ms;
}

bool AdaptiveStopping::enough(const std::vector<double>& samples_ms,
                              double sampling_seconds) const {
  const size_t min_samples = static_cast<size_t>(std::max(timing_.min_samples, 1));
  const size_t max_samples = std::max(min_samples, static_cast<size_t>(timing_.max_samples));
  const size_t n = samples_ms.size();
  if (n >= max_samples) return true;
  if (n >= min_samples && relative_standard_error(samples_ms) < timing_.target_noise) return true;
  if (sampling_seconds < timing_.max_seconds) return false;
  if (n >= min_samples) return true;
  const double projected_seconds = sampling_seconds / static_cast<double>(n) * min_samples;
  const double limit = sampling_limit_seconds(timing_);
  if (projected_seconds <= limit && sampling_seconds < limit) return false;
  return n >= std::min(min_samples, kFewestSamples);
}

double sampling_limit_seconds(const TimingOptions& timing) {
  return kMinSamplesTimeFactor * timing.max_seconds;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median_lower_bound(const std::vector<double>& samples_ms) {
  const size_t n = samples_ms.size();
  // P(Binomial(n, 1/2) < k), summed term by term until it passes the allowed error.
  const double allowed = 1.0 - kRaceConfidence;
  double term = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  double below = 0;
  size_t k = 0;
  while (k < n && below + term <= allowed) {
    below += term;
    ++k;
    term *= static_cast<double>(n - k + 1) / static_cast<double>(k);  // P(B = k)
  }
  if (k == 0) return NAN;
  std::vector<double> sorted = samples_ms;
  std::nth_element(sorted.begin(), sorted.begin() + (k - 1), sorted.end());
  return sorted[k - 1];
}

bool cannot_reach(const std::vector<double>& samples_ms, const RaceLimit& race) {
  if (!race.active()) return false;
  if (samples_ms.size() < static_cast<size_t>(std::max(race.min_samples, 1))) return false;
  const double bound = median_lower_bound(samples_ms);
  return !std::isnan(bound) && bound > race.cut_above_ms;
}

TimedSamples collect_samples(const StoppingRule& rule, const std::function<void()>& warm_up,
                             const std::function<double()>& take_sample, const RaceLimit& race,
                             const SecondsClock& now, bool gpu_hot) {
  const double warmup_start = now();
  do {
    warm_up();
  } while (!rule.warmed_up(now() - warmup_start, gpu_hot));
  TimedSamples timed;
  const double start = now();
  for (;;) {
    timed.samples_ms.push_back(take_sample());
    if (rule.enough(timed.samples_ms, now() - start)) break;
    if (cannot_reach(timed.samples_ms, race)) {
      timed.cut_short = true;
      break;
    }
  }
  return timed;
}

std::vector<double> collect_samples(const StoppingRule& rule, const std::function<void()>& warm_up,
                                    const std::function<double()>& take_sample,
                                    const SecondsClock& now) {
  return collect_samples(rule, warm_up, take_sample, RaceLimit{}, now).samples_ms;
}

double relative_standard_error(const std::vector<double>& samples) {
  const double n = static_cast<double>(samples.size());
  if (samples.size() < 2) return INFINITY;
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= n;
  double variance = 0;
  for (double s : samples) variance += (s - mean) * (s - mean);
  variance /= n - 1;
  return mean > 0 ? std::sqrt(variance) / std::sqrt(n) / mean : INFINITY;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace gputune
