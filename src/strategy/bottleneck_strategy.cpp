#include "strategy/bottleneck_strategy.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "strategy/acquisition.h"
#include "strategy/registry.h"

namespace gputune {

struct BottleneckStrategy::Impl {
  // The proposals of one propose() call, until all are observed.
  struct Batch {
    size_t remaining = 0;
    std::optional<Measurement> best;
  };
  // What steers: the fastest profiled variant, and the way each dimension addresses its
  // bottleneck (none: it is no remedy, and a remedy move keeps it).
  struct Steer {
    double median_ms = 0;
    std::vector<size_t> digits;
    std::vector<std::optional<RemedyKnob>> remedy;
    bool any_remedy = false;
  };

  explicit Impl(uint64_t seed, BottleneckStrategyOptions o)
      : options(std::move(o)), model(seed, options.model) {}

  BottleneckStrategyOptions options;
  ModelStrategy model;
  const SearchSpace* space = nullptr;
  VariantProfiler* profiler = nullptr;
  bool refused = false;
  double simulated_s = 0;  // the measurements' own times, where the profiler has no clock
  size_t observed = 0;     // results seen
  // When the first results came in, and how many: the pace of a search is measured from there.
  double first_results_s = 0;
  size_t first_observed = 0;
  uint64_t planned_evaluations = 0;
  double planned_seconds = 0;
  size_t next_batch = 0;
  std::unordered_map<size_t, Batch> batches;
  std::unordered_map<uint64_t, size_t> batch_of;
  std::optional<Measurement> pending;  // a batch's best, waiting for an idle GPU
  std::unordered_set<uint64_t> profiled;
  std::optional<Steer> steer;
  BottleneckStrategyStats stats;

  // Whether `candidate` applies the steering variant's remedy: it changes at least one of the
  // knobs that address the bottleneck, each the way the knob does, and nothing else.
  bool remedy_move(uint64_t candidate) const {
    const std::vector<size_t> to = space->decode(candidate);
    bool changed = false;
    for (size_t d = 0; d < to.size(); ++d) {
      const size_t from = steer->digits[d];
      if (from == to[d]) continue;
      const std::optional<RemedyKnob>& way = steer->remedy[d];
      if (!way) return false;
      const Value& a = space->dimensions()[d].values[from];
      const Value& b = space->dimensions()[d].values[to[d]];
      // A remedy that names its value (merge_layout: strided) moves the knob to that value.
      if (!way->value.empty() && b.text() != way->value) return false;
      if (way->direction != KnobDirection::kEither) {
        if (!a.is_number() || !b.is_number()) return false;
        if ((b.as_number() > a.as_number()) != (way->direction == KnobDirection::kRaise)) {
          return false;
        }
      }
      changed = true;
    }
    return changed;
  }

  double elapsed() const { return profiler->elapsed_s().value_or(simulated_s); }

  // The wall time the profiling budget is a share of. With a plan, the search's expected length:
  // the evaluations left at the pace since the first results came in (startup and the first
  // compiles left out: a pipelined search goes much faster once full), profiles left out,
  // within the time limit. So the budget can be spent early, when a verdict steers most; a
  // search that stops before its plan ends may end with a larger share.
  double budget_wall_s() const {
    const double so_far = elapsed();
    if (planned_evaluations == 0 || observed <= first_observed) return so_far;
    const double pace = (so_far - first_results_s - stats.profile_s) / (observed - first_observed);
    const double left = static_cast<double>(planned_evaluations) - static_cast<double>(observed);
    double planned = so_far + std::max(0.0, left) * pace;
    if (planned_seconds > 0) planned = std::min(planned, planned_seconds);
    return std::max(so_far, planned);
  }

  bool within_budget(uint64_t index) const {
    return stats.profile_s + profiler->expected_cost_s(index) <=
           options.profile_share * budget_wall_s();
  }

  // A profile explains one variant; only a variant faster than the one that steers now can
  // change the steering, so slower batch bests are not worth the budget.
  bool worth_profiling(const Measurement& m) const {
    return !profiled.count(m.config_index) && (!steer || m.median_ms() < steer->median_ms);
  }

  void offer(const Measurement& best) {
    if (profiler == nullptr || refused || !worth_profiling(best)) return;
    if (pending) {
      if (pending->median_ms() <= best.median_ms()) return;
      ++stats.over_budget;  // the GPU stayed busy or the budget short until a better one came
    }
    pending = best;
  }

  void steer_by(const Measurement& m, const VariantProfile& profile) {
    Steer next;
    next.median_ms = m.median_ms();
    next.digits = space->decode(m.config_index);
    next.remedy.assign(next.digits.size(), std::nullopt);
    stats.knobs.clear();
    for (const RemedyKnob& knob : profile.knobs) {
      stats.knobs.push_back(knob.name);
      const int dimension = space->dimension_index(knob.name);
      if (dimension < 0) continue;
      next.remedy[dimension] = knob;
      next.any_remedy = true;
    }
    stats.step = profile.step;
    stats.steering = m.config_index;
    steer = std::move(next);
  }
};

BottleneckStrategy::BottleneckStrategy(uint64_t seed, BottleneckStrategyOptions options)
    : impl_(std::make_unique<Impl>(seed, std::move(options))) {}

BottleneckStrategy::~BottleneckStrategy() = default;

void BottleneckStrategy::start(const StrategyContext& context) {
  Impl& s = *impl_;
  s.model.start(context);
  s.space = &context.space;
  s.profiler = context.profiler;
  s.refused = false;
  s.simulated_s = 0;
  s.observed = 0;
  s.first_results_s = 0;
  s.first_observed = 0;
  s.planned_evaluations = context.planned_evaluations;
  s.planned_seconds = context.planned_seconds;
  s.next_batch = 0;
  s.batches.clear();
  s.batch_of.clear();
  s.pending.reset();
  s.profiled.clear();
  s.steer.reset();
  s.stats = {};
}

std::vector<uint64_t> BottleneckStrategy::propose(size_t max_batch) {
  Impl& s = *impl_;
  std::vector<uint64_t> batch;
  if (s.steer && s.steer->any_remedy) {
    while (batch.size() < std::min(max_batch, s.options.remedy_moves)) {
      auto move = s.model.propose_among([&s](uint64_t c) { return s.remedy_move(c); });
      if (!move) break;
      batch.push_back(*move);
      ++s.stats.remedy_moves;
    }
  }
  for (uint64_t index : s.model.propose(max_batch - batch.size())) batch.push_back(index);
  if (batch.empty()) return batch;
  const size_t id = s.next_batch++;
  s.batches[id].remaining = batch.size();
  for (uint64_t index : batch) s.batch_of[index] = id;
  return batch;
}

void BottleneckStrategy::observe(const std::vector<Measurement>& results) {
  Impl& s = *impl_;
  s.model.observe(results);
  const bool first = s.observed == 0 && !results.empty();
  for (const Measurement& m : results) {
    s.simulated_s += (m.compile_ms + m.check_ms + m.time_ms) / 1000;
    ++s.observed;
    auto found = s.batch_of.find(m.config_index);
    if (found == s.batch_of.end()) continue;
    const size_t id = found->second;
    s.batch_of.erase(found);
    Impl::Batch& batch = s.batches[id];
    double log_ms = 0;
    if (ok_log_time(m, &log_ms) && (!batch.best || m.median_ms() < batch.best->median_ms())) {
      batch.best = m;
    }
    if (--batch.remaining > 0) continue;
    if (batch.best) s.offer(*batch.best);
    s.batches.erase(id);
  }
  if (first && s.profiler != nullptr) {
    s.first_results_s = s.elapsed();
    s.first_observed = s.observed;
  }
}

bool BottleneckStrategy::wants_idle_gpu() const {
  const Impl& s = *impl_;
  return s.pending && s.profiler != nullptr && !s.refused &&
         s.within_budget(s.pending->config_index);
}

void BottleneckStrategy::use_idle_gpu() {
  Impl& s = *impl_;
  if (!wants_idle_gpu()) return;
  const Measurement m = *s.pending;
  s.pending.reset();
  s.stats.elapsed_s = s.elapsed();
  s.stats.planned_s = s.planned_evaluations > 0 ? s.budget_wall_s() : 0;
  const VariantProfile profile = s.profiler->profile(m);
  s.profiled.insert(m.config_index);
  s.stats.profile_s += profile.cost_s;
  if (!profile.ok) {
    ++s.stats.failed;
    s.stats.message = profile.message;
    s.refused = profile.unavailable;
    return;
  }
  ++s.stats.profiled;
  if (!s.steer || m.median_ms() < s.steer->median_ms) s.steer_by(m, profile);
}

const BottleneckStrategyStats& BottleneckStrategy::stats() const { return impl_->stats; }
const ModelStrategy& BottleneckStrategy::model() const { return impl_->model; }

namespace {
const StrategyRegistrar kRegistrar{
    {"bottleneck", 55, [](uint64_t seed) { return std::make_unique<BottleneckStrategy>(seed); }}};
}  // namespace

}  // namespace gputune
