#pragma once
// Timing a variant: warm-up launches, then one timed sample after another until a stopping
// rule says enough. Nothing here touches the GPU, so rules are tested on made-up samples.
#include <functional>
#include <memory>
#include <vector>

namespace gputune {

struct TimingOptions {
  int warmup_ms = 20;  // run at least this long before sampling a GPU that has been idle
  // A GPU that ran a launch within hot_window_s is already at its clocks (the variant's own
  // checked run comes just before its timing): it warms up only this long, at least one launch.
  int hot_warmup_ms = 2;
  double hot_window_s = 0.25;
  int min_samples = 10;
  int max_samples = 500;
  double max_seconds = 1.0;     // per variant
  double target_noise = 0.005;  // stop when the median's relative standard error is below this
  bool flush_l2 = true;
  // Brackets each variant's checked launches with cuda::profiler_start/stop, so that a profiler
  // collects those launches and none of the fills, checks or timed samples around them.
  bool profile_checked_run = false;
};

class StoppingRule {
 public:
  virtual ~StoppingRule() = default;
  // After each warm-up launch (there is always one): true to start sampling. `gpu_hot`: the
  // GPU ran a launch just before this variant's warm-up began.
  virtual bool warmed_up(double warmup_seconds, bool gpu_hot) const = 0;
  // After each sample: true when the samples so far are enough.
  virtual bool enough(const std::vector<double>& samples_ms, double sampling_seconds) const = 0;
};

// The rule, from TimingOptions: warm up for warmup_ms (hot_warmup_ms on a hot GPU); then stop at
// max_samples, or from min_samples on once the noise is below target_noise, or when max_seconds
// have passed and min_samples are reached. A variant too slow for min_samples in max_seconds goes
// on past it while min_samples, at the pace so far, fit in sampling_limit_seconds (3 x
// max_seconds); one slower still stops after max_seconds with at least min(min_samples, 3) samples.
class AdaptiveStopping : public StoppingRule {
 public:
  explicit AdaptiveStopping(const TimingOptions& timing) : timing_(timing) {}
  bool warmed_up(double warmup_seconds, bool gpu_hot) const override;
  bool enough(const std::vector<double>& samples_ms, double sampling_seconds) const override;

 private:
  TimingOptions timing_;
};

// The longest a variant samples (warm-up aside): what a watchdog must allow for.
double sampling_limit_seconds(const TimingOptions& timing);

// Seconds on a steady clock; replaceable in tests.
using SecondsClock = std::function<double()>;
double steady_seconds();

// Racing: a variant is timed only until its samples show that it cannot come within the
// noise of the best so far. The search sets the limit from the best full measurement so far.
struct RaceLimit {
  double cut_above_ms = 0;  // best so far x (1 + margin); 0: no race, full sampling
  int min_samples = 3;      // never cut on fewer samples
  bool active() const { return cut_above_ms > 0; }
};

// The confidence that the samples' lower bound of the median holds.
constexpr double kRaceConfidence = 0.85;

// A distribution-free lower confidence bound of the median: the k-th smallest sample, for the
// largest k with P(Binomial(n, 1/2) < k) <= 1 - kRaceConfidence (the minimum from 3 samples);
// NaN when n is too small for any k.
double median_lower_bound(const std::vector<double>& samples_ms);

// True once the samples are enough to race with and their median's lower bound is above the
// limit: the variant cannot come within the margin of the best.
bool cannot_reach(const std::vector<double>& samples_ms, const RaceLimit& race);

struct TimedSamples {
  std::vector<double> samples_ms;
  bool cut_short = false;  // stopped by the race before the rule had enough
};

// Runs warm_up() until the rule is warmed up, then take_sample() (milliseconds) until it has
// enough or, racing, the samples cannot reach the limit; returns every sample.
TimedSamples collect_samples(const StoppingRule& rule, const std::function<void()>& warm_up,
                             const std::function<double()>& take_sample, const RaceLimit& race,
                             const SecondsClock& now = steady_seconds, bool gpu_hot = false);
std::vector<double> collect_samples(const StoppingRule& rule, const std::function<void()>& warm_up,
                                    const std::function<double()>& take_sample,
                                    const SecondsClock& now = steady_seconds);

// The standard error of the mean relative to the mean; infinite for fewer than 2 samples or a
// mean that is not positive.
double relative_standard_error(const std::vector<double>& samples);
double median(std::vector<double> values);  // of at least one value

}  // namespace gputune
