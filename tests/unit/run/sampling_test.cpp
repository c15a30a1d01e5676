#include "run/sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gputune {
namespace {

// A stream of made-up samples on a made-up clock: each launch takes `launch_s` seconds.
struct SyntheticRun {
  std::vector<double> stream;    // repeated
  double launch_s = 1.0 / 1024;  // exact in binary: the clock adds up without rounding
  double clock = 0;
  int warmups = 0;
  size_t next = 0;

  std::vector<double> collect(const StoppingRule& rule, bool gpu_hot = false) {
    return collect_samples(
               rule,
               [this] {
                 ++warmups;
                 clock += launch_s;
               },
               [this] {
                 clock += launch_s;
                 return stream[next++ % stream.size()];
               },
               RaceLimit{}, [this] { return clock; }, gpu_hot)
        .samples_ms;
  }
};

TimingOptions options() {
  TimingOptions timing;
  timing.warmup_ms = 20;
  timing.min_samples = 10;
  timing.max_samples = 50;
  timing.max_seconds = 1.0;
  timing.target_noise = 0.005;
  return timing;
}

TEST(AdaptiveStopping, WarmsUpForItsTimeThenStopsAtMinSamplesWhenQuiet) {
  SyntheticRun run{{1.0}};
  const std::vector<double> samples = run.collect(AdaptiveStopping(options()));
  EXPECT_EQ(run.warmups, 21);  // 20 ms of 0.977 ms launches
  EXPECT_EQ(samples.size(), 10u);
}

TEST(AdaptiveStopping, AHotGpuWarmsUpOnlyForTheHotWarmUp) {
  TimingOptions timing = options();
  timing.hot_warmup_ms = 2;
  SyntheticRun run{{1.0}};
  run.collect(AdaptiveStopping(timing), /*gpu_hot=*/true);
  EXPECT_EQ(run.warmups, 3);  // 2 ms of 0.977 ms launches, not 20
}

TEST(AdaptiveStopping, TheHotWarmUpIsNeverLongerThanTheColdOne) {
  TimingOptions timing = options();
  timing.warmup_ms = 1;
  timing.hot_warmup_ms = 5;
  SyntheticRun run{{1.0}};
  run.collect(AdaptiveStopping(timing), /*gpu_hot=*/true);
  EXPECT_EQ(run.warmups, 2);  // 1 ms
}

TEST(AdaptiveStopping, AlwaysWarmsUpOnce) {
  TimingOptions timing = options();
  timing.warmup_ms = 0;
  SyntheticRun run{{1.0}};
  run.collect(AdaptiveStopping(timing));
  EXPECT_EQ(run.warmups, 1);
}

TEST(AdaptiveStopping, NoisySamplesRunToMaxSamples) {
  SyntheticRun run{{1.0, 2.0, 0.5, 3.0}};
  EXPECT_EQ(run.collect(AdaptiveStopping(options())).size(), 50u);
}

TEST(AdaptiveStopping, NoiseThatSettlesStopsBetweenMinAndMax) {
  // Ten noisy samples, then steady ones: the standard error falls below 0.5 % on the way.
  SyntheticRun run{{}};
  for (int i = 0; i < 10; ++i) run.stream.push_back(i % 2 == 0 ? 1.03 : 0.97);
  for (int i = 0; i < 200; ++i) run.stream.push_back(1.0);
  const size_t n = run.collect(AdaptiveStopping(options())).size();
  EXPECT_EQ(n, 20u);  // 0.009 / (n (n - 1)) < 0.005^2 from n = 20 on
  std::vector<double> kept(run.stream.begin(), run.stream.begin() + static_cast<long>(n));
  EXPECT_LT(relative_standard_error(kept), 0.005);
  kept.pop_back();
  EXPECT_GE(relative_standard_error(kept), 0.005);  // it stopped at the first quiet enough
}

TEST(AdaptiveStopping, TheTimeBudgetStopsSlowNoisyVariantsAfterThreeSamples) {
  SyntheticRun run{{100.0, 300.0}, 0.4};  // 0.4 s a launch: the 1 s budget is gone after 3
  EXPECT_EQ(run.collect(AdaptiveStopping(options())).size(), 3u);
}

TEST(AdaptiveStopping, FewerMinSamplesThanThreeAreKeptUnderTheTimeBudget) {
  TimingOptions timing = options();
  timing.min_samples = 2;
  SyntheticRun run{{100.0, 300.0}, 2.0};
  EXPECT_EQ(run.collect(AdaptiveStopping(timing)).size(), 2u);
}

TEST(AdaptiveStopping, SlowVariantsReachMinSamplesWhenTheyFitInThreeTimesTheBudget) {
  // 0.25 s a sample: 4 samples by the 1 s budget, 10 projected at 2.5 s, within 3 s.
  SyntheticRun run{{100.0, 300.0}, 0.25};
  EXPECT_EQ(run.collect(AdaptiveStopping(options())).size(), 10u);
  EXPECT_DOUBLE_EQ(run.clock - run.launch_s * run.warmups, 2.5);
}

TEST(AdaptiveStopping, QuietSlowVariantsStillStopAtMinSamples) {
  SyntheticRun run{{150.0}, 0.15};
  EXPECT_EQ(run.collect(AdaptiveStopping(options())).size(), 10u);
}

TEST(AdaptiveStopping, VariantsTooSlowForMinSamplesInThreeTimesTheBudgetStopAtItsEnd) {
  // 0.35 s a sample: 10 would take 3.5 s, so the 1 s budget stops it after 3 samples.
  SyntheticRun run{{100.0, 300.0}, 0.35};
  EXPECT_EQ(run.collect(AdaptiveStopping(options())).size(), 3u);
}

TEST(AdaptiveStopping, SamplingNeverPassesItsLimitByMoreThanOneSample) {
  // Samples that slow down: the pace promised 10 in time, the limit stops them at 3 s.
  TimingOptions timing = options();
  double clock = 0;
  std::vector<double> samples = collect_samples(
      AdaptiveStopping(timing), [&] { clock += 0.001; },
      [&] {
        clock += clock < 1.0 ? 0.2 : 1.0;
        return 1.0 + clock;
      },
      [&] { return clock; });
  EXPECT_LE(clock, sampling_limit_seconds(timing) + 1.0 + 0.05);
  EXPECT_LT(samples.size(), 10u);
  EXPECT_DOUBLE_EQ(sampling_limit_seconds(timing), 3.0);
}

// Any rule plugs in: this one takes a fixed number of samples and no warm-up time.
class FixedCount : public StoppingRule {
 public:
  explicit FixedCount(size_t count) : count_(count) {}
  bool warmed_up(double, bool) const override { return true; }
  bool enough(const std::vector<double>& samples, double) const override {
    return samples.size() >= count_;
  }

 private:
  size_t count_;
};

TEST(StoppingRule, ACustomRuleDecides) {
  SyntheticRun run{{1.0, 2.0, 0.5, 3.0}};
  const std::vector<double> samples = run.collect(FixedCount(7));
  EXPECT_EQ(run.warmups, 1);
  EXPECT_EQ(samples, (std::vector<double>{1.0, 2.0, 0.5, 3.0, 1.0, 2.0, 0.5}));
}

TEST(SampleStatistics, MedianAndRelativeStandardError) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_TRUE(std::isinf(relative_standard_error({1.0})));
  EXPECT_DOUBLE_EQ(relative_standard_error({2.0, 2.0, 2.0}), 0.0);
  // mean 2, sample standard deviation 1, n = 3: 1 / sqrt(3) / 2.
  EXPECT_NEAR(relative_standard_error({1.0, 2.0, 3.0}), 1 / std::sqrt(3.0) / 2, 1e-15);
}

// Racing: a fixed number of samples unless the race is lost.
class FixedSamples : public StoppingRule {
 public:
  explicit FixedSamples(size_t n) : n_(n) {}
  bool warmed_up(double, bool) const override { return true; }
  bool enough(const std::vector<double>& samples_ms, double) const override {
    return samples_ms.size() >= n_;
  }

 private:
  size_t n_;
};

TimedSamples race(const std::vector<double>& stream, const RaceLimit& limit, size_t full = 10) {
  size_t next = 0;
  return collect_samples(
      FixedSamples(full), [] {}, [&] { return stream[next++ % stream.size()]; }, limit,
      [] { return 0.0; });
}

TEST(MedianLowerBound, IsAnOrderStatisticThatHoldsWithTheRaceConfidence) {
  EXPECT_TRUE(std::isnan(median_lower_bound({1.0, 2.0})));  // 2 samples: 75% at best
  EXPECT_DOUBLE_EQ(median_lower_bound({3.0, 1.0, 2.0}), 1.0);
  // 10 samples: P(Binomial(10, 1/2) < 3) = 5.5% <= 15% < P(< 4) = 17.2%: the 3rd smallest.
  EXPECT_DOUBLE_EQ(median_lower_bound({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}), 3.0);
}

TEST(Racing, AVariantFarSlowerThanTheBestIsCutAfterMinSamples) {
  const TimedSamples timed = race({3.0, 3.1, 2.9}, RaceLimit{1.1, 3});
  EXPECT_TRUE(timed.cut_short);
  EXPECT_EQ(timed.samples_ms.size(), 3u);
}

TEST(Racing, NeverCutsOnFewerThanMinSamples) {
  const TimedSamples timed = race({3.0}, RaceLimit{1.1, 5});
  EXPECT_TRUE(timed.cut_short);
  EXPECT_EQ(timed.samples_ms.size(), 5u);
}

TEST(Racing, AVariantWithinTheMarginIsSampledInFull) {
  const TimedSamples timed = race({1.05, 1.08, 1.04}, RaceLimit{1.1, 3});
  EXPECT_FALSE(timed.cut_short);
  EXPECT_EQ(timed.samples_ms.size(), 10u);
}

TEST(Racing, ASampleWithinTheMarginKeepsANoisyVariantInTheRace) {
  // Most samples are slow, but the lower bound of the median (the minimum of 3, the 3rd
  // smallest of 10) stays within the limit: the samples do not say it cannot win.
  const TimedSamples timed =
      race({2.0, 1.0, 2.0, 1.05, 2.0, 1.02, 2.0, 2.0, 2.0, 2.0}, RaceLimit{1.1, 3});
  EXPECT_FALSE(timed.cut_short);
  EXPECT_EQ(timed.samples_ms.size(), 10u);
}

TEST(Racing, NoRaceWithoutALimitAndTheStoppingRuleComesFirst) {
  EXPECT_FALSE(race({5.0}, RaceLimit{}).cut_short);
  // Enough samples for the rule at the same sample that would lose the race: a full one.
  const TimedSamples timed = race({5.0}, RaceLimit{1.1, 3}, 3);
  EXPECT_FALSE(timed.cut_short);
  EXPECT_EQ(timed.samples_ms.size(), 3u);
}

}  // namespace
}  // namespace gputune
