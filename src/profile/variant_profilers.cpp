#include "profile/variant_profilers.h"

#include <chrono>
#include <filesystem>
#include <limits>
#include <sstream>

#include "compile/compiler.h"
#include "search/matching_workloads.h"
#include "search/search.h"
#include "strategy/bottleneck_strategy.h"

namespace gputune {
namespace {

using Clock = std::chrono::steady_clock;

// Before the first profile: what ncu on one launch takes with the bottleneck's metrics (its
// start, the launcher's start, module load and input fill, and the replay passes).
// `gputune analyze --best` on SGEMM 1024^3 took 2.2 to 2.8 s in all on an H100 (2026-11-23).
constexpr double kFirstProfileGuessS = 2.5;
// The first CUPTI profile in a worker starts CUPTI and enables its range profiler: 0.7 to
// 1.2 s on an H100 (2026-11-24); later ones took about 0.23 s.
constexpr double kFirstCuptiProfileGuessS = 1.0;

std::string seconds(double s) {
  std::ostringstream out;
  out.precision(s < 10 ? 2 : 3);
  out << s << " s";
  return out.str();
}

// What every search profiler counts for its summary.
class CountingProfiler : public SearchProfiler {
 public:
  std::string summary(double search_wall_s, bool always) const override {
    if (asked_ == 0 && !always) return "";
    std::ostringstream out;
    out << "profiling (" << what() << "): " << profiled_ << " of " << asked_
        << " variants asked for have counters, " << seconds(spent_s_);
    if (search_wall_s > 0) {
      out.precision(2);
      out << std::fixed << " (" << 100 * spent_s_ / search_wall_s << "% of the search's "
          << seconds(search_wall_s) << ")";
    }
    if (!fastest_step_.empty()) {
      out << "; the fastest profiled variant: " << fastest_step_;
      if (!fastest_remedy_.empty()) out << " (" << fastest_remedy_ << ")";
    }
    if (!message_.empty()) {
      out << "; " << (profiled_ == 0 ? "the search went on without counters: " : "last failure: ")
          << message_;
    } else if (asked_ == 0) {
      out << "; " << why_none(search_wall_s);
    }
    return out.str();
  }
  size_t asked() const override { return asked_; }
  size_t profiled() const override { return profiled_; }
  double spent_s() const override { return spent_s_; }

 protected:
  virtual std::string what() const = 0;
  // Why no variant was asked for, said after the search.
  virtual std::string why_none(double search_wall_s) const = 0;

  VariantProfile count(const Measurement& measured, VariantProfile profile) {
    ++asked_;
    spent_s_ += profile.cost_s;
    if (profile.ok) {
      ++profiled_;
      cost_sum_s_ += profile.cost_s;
      if (measured.median_ms() < fastest_ms_) {
        fastest_ms_ = measured.median_ms();
        fastest_step_ = profile.step;
        fastest_remedy_ = describe_remedy_knobs(profile.knobs);
      }
    } else {
      message_ = profile.message;
    }
    return profile;
  }
  double mean_cost_s() const { return profiled_ > 0 ? cost_sum_s_ / profiled_ : 0; }

 private:
  size_t asked_ = 0, profiled_ = 0;
  double spent_s_ = 0, cost_sum_s_ = 0;
  std::string message_;
  // The verdict the bottleneck strategy steers by: that of the fastest variant profiled.
  double fastest_ms_ = std::numeric_limits<double>::infinity();
  std::string fastest_step_, fastest_remedy_;
};

// A profiler of a live search: counters of measured variants, classified in this spec's terms
// and stored with their measurements. The budget's clock starts when it is made.
class LiveProfiler : public CountingProfiler {
 public:
  LiveProfiler(const Problem& problem, Store& store, DeviceInfo device, double first_guess_s)
      : problem_(problem),
        store_(store),
        device_(std::move(device)),
        first_guess_s_(first_guess_s),
        start_(Clock::now()) {}

  std::optional<double> elapsed_s() const override {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

  double expected_cost_s(uint64_t) const override {
    if (!unavailable_.empty()) return 0;  // finding that out costs nothing
    return profiled() > 0 ? mean_cost_s() : first_guess_s_;
  }

  VariantProfile profile(const Measurement& measured) override {
    VariantProfile profile;
    if (!unavailable_.empty()) {
      profile.message = unavailable_;
      profile.unavailable = true;
      return count(measured, profile);
    }
    const CounterResult result = take(measured.config_index);
    if (!result.ok) {
      profile.message = result.message;
      profile.unavailable = result.unavailable;
      profile.cost_s = result.wall_s;
      if (result.unavailable) unavailable_ = result.message;
      return count(measured, profile);
    }
    // The search measured (or found stored) the device's copy bandwidth before it began.
    profile = variant_profile(problem_.spec(), result.counters.values,
                              store_.copy_bandwidth(device_).value_or(0));
    profile.cost_s = result.wall_s;
    StoredCounters stored;
    stored.source = result.source;
    stored.wall_s = result.wall_s;
    stored.values = result.counters.values;
    store_.store_counters(workload(), measured.config_index,
                          problem_.space().json(measured.config_index), stored);
    return count(measured, profile);
  }

  // Why no profile can be taken here ("" while one can).
  const std::string& unavailable() const { return unavailable_; }

 protected:
  virtual CounterResult take(uint64_t index) = 0;
  const Problem& problem() const { return problem_; }
  void set_unavailable(std::string why) { unavailable_ = std::move(why); }

 private:
  std::string why_none(double search_wall_s) const override {
    if (!unavailable_.empty()) return "the search went on without counters: " + unavailable_;
    const double share = BottleneckStrategyOptions{}.profile_share;
    std::ostringstream out;
    out << "the first profile, expected to take " << seconds(first_guess_s_) << ", never fit in "
        << 100 * share << "% of the search's wall time (" << seconds(share * search_wall_s)
        << " at its end), or no batch of the model finished; a longer --budget leaves room";
    return out.str();
  }

  int64_t workload() {
    if (workload_ == 0)
      workload_ = workload_measured_as(store_, problem_, device_, nvrtc_version());
    return workload_;
  }

  const Problem& problem_;
  Store& store_;
  DeviceInfo device_;
  double first_guess_s_;
  Clock::time_point start_;
  std::string unavailable_;
  int64_t workload_ = 0;
};

// ncu on `gputune profile-launch`, a program of its own.
class NcuProfiler : public LiveProfiler {
 public:
  NcuProfiler(const Problem& problem, std::string spec_path, ProblemOverrides overrides,
              Store& store, DeviceInfo device, NcuLaunch launch)
      : LiveProfiler(problem, store, std::move(device), kFirstProfileGuessS),
        spec_path_(std::move(spec_path)),
        overrides_(std::move(overrides)),
        launch_(std::move(launch)),
        source_(make_ncu_counter_source(launch_.ncu)) {
    std::string why = source_->unavailable_reason();
    std::error_code error;
    if (why.empty() &&
        (spec_path_.empty() || !std::filesystem::is_regular_file(spec_path_, error))) {
      why =
          "the spec has no file that gputune profile-launch could load under ncu; "
          "write it to a YAML file and search that";
    }
    set_unavailable(why);
  }

 private:
  std::string what() const override { return "ncu"; }
  CounterResult take(uint64_t index) override {
    return profile_variant(*source_, problem(), spec_path_, overrides_, index, launch_);
  }

  std::string spec_path_;
  ProblemOverrides overrides_;
  NcuLaunch launch_;
  std::unique_ptr<CounterSource> source_;
};

// Counters from CUPTI's range profiler in the GPU worker that measures: no program to start,
// the module and inputs already there, so a profile costs little more than its replay passes.
class CuptiProfiler : public LiveProfiler {
 public:
  CuptiProfiler(const Problem& problem, Compiler& compiler, ProcessRunner& runner, Store& store,
                double timeout_s)
      : LiveProfiler(problem, store, runner.device(), kFirstCuptiProfileGuessS),
        compiler_(compiler),
        runner_(runner),
        timeout_s_(timeout_s) {}

 private:
  std::string what() const override { return "CUPTI"; }
  CounterResult take(uint64_t index) override {
    return profile_variant_in_worker(runner_, compiler_, problem(), index, timeout_s_);
  }

  Compiler& compiler_;
  ProcessRunner& runner_;
  double timeout_s_;
};

// CUPTI while it can; once it says it cannot here (no library, no permission), ncu.
class CuptiThenNcuProfiler : public SearchProfiler {
 public:
  CuptiThenNcuProfiler(std::unique_ptr<CuptiProfiler> cupti, std::unique_ptr<SearchProfiler> ncu)
      : cupti_(std::move(cupti)), ncu_(std::move(ncu)) {}

  std::optional<double> elapsed_s() const override { return cupti_->elapsed_s(); }
  double expected_cost_s(uint64_t index) const override { return current().expected_cost_s(index); }
  VariantProfile profile(const Measurement& measured) override {
    if (cupti_->unavailable().empty()) {
      VariantProfile profile = cupti_->profile(measured);
      if (profile.ok || !profile.unavailable) return profile;
    }
    return ncu_->profile(measured);
  }
  std::string summary(double search_wall_s, bool always) const override {
    if (cupti_->unavailable().empty()) return cupti_->summary(search_wall_s, always);
    std::string text = ncu_->summary(search_wall_s, true);
    return text + "; CUPTI was not used: " + cupti_->unavailable();
  }
  size_t asked() const override { return cupti_->asked() + ncu_->asked(); }
  size_t profiled() const override { return cupti_->profiled() + ncu_->profiled(); }
  double spent_s() const override { return cupti_->spent_s() + ncu_->spent_s(); }

 private:
  const SearchProfiler& current() const {
    return cupti_->unavailable().empty() ? static_cast<const SearchProfiler&>(*cupti_) : *ncu_;
  }
  std::unique_ptr<CuptiProfiler> cupti_;
  std::unique_ptr<SearchProfiler> ncu_;
};

class RecordedProfiler : public CountingProfiler {
 public:
  RecordedProfiler(const Spec& spec, std::map<uint64_t, StoredCounters> counters, double start_s,
                   double copy_bandwidth_gbs)
      : spec_(spec),
        counters_(std::move(counters)),
        start_s_(start_s),
        copy_bandwidth_gbs_(copy_bandwidth_gbs) {}

  std::optional<double> elapsed_s() const override { return std::nullopt; }

  double expected_cost_s(uint64_t config_index) const override {
    auto found = counters_.find(config_index);
    return found == counters_.end() ? 0 : cost_s(found->second);
  }

  VariantProfile profile(const Measurement& measured) override {
    auto found = counters_.find(measured.config_index);
    if (found == counters_.end()) {
      VariantProfile none;
      none.message = "no counters recorded for " + measured.config;
      return count(measured, none);
    }
    VariantProfile profile = variant_profile(spec_, found->second.values, copy_bandwidth_gbs_);
    profile.cost_s = cost_s(found->second);
    return count(measured, profile);
  }

  // A recorded cost below ncu's start cannot be a whole ncu run: it is a batch's share per
  // variant, and a search profiling this variant alone would pay the start too.
  double cost_s(const StoredCounters& counters) const {
    return counters.wall_s < start_s_ ? start_s_ + counters.wall_s : counters.wall_s;
  }

 private:
  std::string what() const override { return "recorded counters"; }

  std::string why_none(double) const override {
    if (counters_.empty()) return "the recording has no counters (no '# counters' section)";
    return "no profile fit in the budget's share of the recorded time";
  }

  Spec spec_;
  std::map<uint64_t, StoredCounters> counters_;
  double start_s_;
  double copy_bandwidth_gbs_;
};

}  // namespace

std::unique_ptr<SearchProfiler> make_ncu_profiler(const Problem& problem,
                                                  const std::string& spec_path,
                                                  const ProblemOverrides& overrides, Store& store,
                                                  const DeviceInfo& device, NcuLaunch launch) {
  return std::make_unique<NcuProfiler>(problem, spec_path, overrides, store, device,
                                       std::move(launch));
}

std::unique_ptr<SearchProfiler> make_search_profiler(const std::string& kind,
                                                     const Problem& problem, Compiler& compiler,
                                                     ProcessRunner& runner, Store& store,
                                                     const std::string& spec_path,
                                                     const ProblemOverrides& overrides,
                                                     NcuLaunch launch) {
  if (kind == "ncu") {
    return make_ncu_profiler(problem, spec_path, overrides, store, runner.device(),
                             std::move(launch));
  }
  auto cupti = std::make_unique<CuptiProfiler>(problem, compiler, runner, store, launch.timeout_s);
  if (kind == "cupti") return cupti;
  return std::make_unique<CuptiThenNcuProfiler>(
      std::move(cupti),
      make_ncu_profiler(problem, spec_path, overrides, store, runner.device(), std::move(launch)));
}

std::unique_ptr<SearchProfiler> make_recorded_profiler(const Spec& spec,
                                                       std::map<uint64_t, StoredCounters> counters,
                                                       double start_s, double copy_bandwidth_gbs) {
  return std::make_unique<RecordedProfiler>(spec, std::move(counters), start_s, copy_bandwidth_gbs);
}

}  // namespace gputune
