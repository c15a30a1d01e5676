#include "strategy/prior_pruning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_set>

#include "model/features.h"
#include "model/launch_shape.h"
#include "strategy/prior_ranking.h"
#include "strategy/workload_features.h"

namespace gputune {
namespace {
using Clock = std::chrono::steady_clock;
constexpr uint64_t kWalkLimit = 2'000'000;  // products walked whole to find the valid configs

std::string factor_text(double factor) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", factor);
  return text;
}

// Every valid config of `space`; false (and `why`) when there are too many to rank.
bool valid_configs(const SearchSpace& space, uint64_t limit, std::vector<uint64_t>* out,
                   std::string* why) {
  if (space.size() > kWalkLimit) {
    *why =
        "the space's product (" + std::to_string(space.size()) + " configs) is too large to rank";
    return false;
  }
  for (uint64_t i = 0; i < space.size(); ++i) {
    if (!space.valid(i)) continue;
    if (out->size() == limit) {
      *why = "the space has more than " + std::to_string(limit) + " valid configs";
      return false;
    }
    out->push_back(i);
  }
  return true;
}

// Where a workload ran: its problem values (in the features' order) and its GPU's SM count.
using Place = std::pair<std::vector<double>, int>;

Place place_of(const PriorData& set, const WorkloadFeatures& features) {
  return {features.values_of(set), set.sm_count};
}

std::vector<Place> distinct_places(const std::vector<PriorData>& sets,
                                   const WorkloadFeatures& features) {
  std::vector<Place> places;
  for (const PriorData& set : sets) {
    Place place = place_of(set, features);
    if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(place);
  }
  return places;
}

Eigen::MatrixXd stack(const std::vector<std::vector<double>>& rows, Eigen::Index width) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(rows.size()), width);
  for (size_t r = 0; r < rows.size(); ++r) {
    x.row(static_cast<Eigen::Index>(r)) =
        Eigen::Map<const Eigen::RowVectorXd>(rows[r].data(), width);
  }
  return x;
}

// The configs of `space` that `sets` measured.
std::unordered_set<uint64_t> measured_configs(const std::vector<PriorData>& sets,
                                              const SearchSpace& space) {
  std::unordered_set<uint64_t> out;
  for (const PriorData& set : sets) {
    for (const Measurement& m : set.measurements) {
      if (auto index = index_from_json(space, m.config)) out.insert(*index);
    }
  }
  return out;
}

// What a prior says about configs at one place (this workload's, or a held-out one's): the
// model's predicted log times, and how optimistic a pruning rule must be about each.
class Judgement {
 public:
  Judgement(const StrategyContext& context, const WorkloadFeatures& features,
            const PruneOptions& options)
      : context_(context), features_(features), options_(options) {}

  // The optimistic log time of each config at `place`, by `model`, fit on `teachers`: its
  // predicted mean, less
  // - for a config the teachers never measured (a knob they never turned, a config a partial
  //   search skipped): z times the model's least standard deviation at the teachers' own
  //   places, how far the config lies from what they measured;
  // - for a config that fills more of the GPU here than it did anywhere the teachers measured
  //   it (fewer blocks than SMs there, more here): the log of that gain, since a time measured
  //   with SMs idle says little about a launch that fills them.
  // `mean` receives the predicted means.
  Eigen::VectorXd optimistic(const PriorRanking& model, const std::vector<PriorData>& teachers,
                             const std::vector<uint64_t>& configs, const Place& place,
                             Eigen::VectorXd* mean) const {
    const auto width = static_cast<Eigen::Index>(features_.width());
    std::vector<std::vector<double>> rows;
    for (uint64_t c : configs) rows.push_back(features_.row_at(c, place.first, place.second));
    model.predict(stack(rows, width), mean, nullptr);
    Eigen::VectorXd out = *mean;
    const std::vector<Place> places = distinct_places(teachers, features_);
    const std::unordered_set<uint64_t> measured = measured_configs(teachers, context_.space);
    std::vector<size_t> unknown;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (!measured.count(configs[i])) unknown.push_back(i);
    }
    if (!unknown.empty() && options_.z > 0) {
      Eigen::VectorXd least = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(unknown.size()),
                                                        std::numeric_limits<double>::infinity());
      for (const Place& p : places) {
        std::vector<std::vector<double>> at;
        for (size_t i : unknown) at.push_back(features_.row_at(configs[i], p.first, p.second));
        Eigen::VectorXd m, stddev;
        model.predict(stack(at, width), &m, &stddev);
        least = least.cwiseMin(stddev);
      }
      for (size_t k = 0; k < unknown.size(); ++k) {
        out(static_cast<Eigen::Index>(unknown[k])) -=
            options_.z * least(static_cast<Eigen::Index>(k));
      }
    }
    if (context_.launch) {
      std::vector<std::unordered_set<uint64_t>> measured_at;
      for (const Place& p : places) {
        std::vector<PriorData> at;
        for (const PriorData& set : teachers) {
          if (place_of(set, features_) == p) at.push_back(set);
        }
        measured_at.push_back(measured_configs(at, context_.space));
      }
      for (size_t i = 0; i < configs.size(); ++i) {
        // The fill of its best-filled measurement; of the least-filled place where none
        // measured it.
        double there = 0, least = 1;
        for (size_t p = 0; p < places.size(); ++p) {
          const double f = fill(configs[i], places[p]);
          least = std::min(least, f);
          if (measured_at[p].count(configs[i])) there = std::max(there, f);
        }
        if (there == 0) there = least;
        const double here = fill(configs[i], place);
        if (there > 0 && here > there) out(static_cast<Eigen::Index>(i)) -= std::log(here / there);
      }
    }
    return out;
  }

 private:
  // The share of the GPU's SMs a config's blocks occupy at `place`, at most 1; 0 where unknown.
  double fill(uint64_t config, const Place& place) const {
    const int sms = place.second > 0 ? place.second : context_.sm_count;
    if (sms <= 0) return 0;
    std::vector<std::pair<std::string, double>> named;
    for (size_t p = 0; p < features_.problem_names().size(); ++p) {
      named.push_back({features_.problem_names()[p], place.first[p]});
    }
    const std::optional<LaunchShape> shape = context_.launch(config, named);
    if (!shape || !(shape->blocks > 0)) return 0;
    return std::min(1.0, shape->blocks / sms);
  }

  const StrategyContext& context_;
  const WorkloadFeatures& features_;
  const PruneOptions& options_;
};

// The held-out check: each prior workload with others elsewhere (other problem values or
// another GPU) is judged by a model fit on those others, as this workload is by all of them.
// Per held-out workload: how far above its lowest predicted mean lies the lowest optimistic
// time among its configs within `near` of its measured best (log time). A held-out workload
// none of whose best configs the others measured (another kernel version's slice) checks
// nothing and is left out.
std::vector<double> held_out_needs(const StrategyContext& context, const WorkloadFeatures& features,
                                   const PruneOptions& options, uint64_t seed) {
  std::vector<double> needs;
  const Judgement judge(context, features, options);
  for (const PriorData& held : context.prior) {
    const Place place = place_of(held, features);
    std::vector<PriorData> others;
    for (const PriorData& set : context.prior) {
      if (place_of(set, features) != place) others.push_back(set);
    }
    if (others.empty()) continue;
    std::vector<uint64_t> configs;
    std::vector<const Measurement*> of;
    double best = std::numeric_limits<double>::infinity();
    for (const Measurement& m : held.measurements) {
      const std::optional<uint64_t> index = index_from_json(context.space, m.config);
      if (!index) continue;
      configs.push_back(*index);
      of.push_back(&m);
      if (m.status == Status::kOk && !m.samples_ms.empty()) best = std::min(best, m.median_ms());
    }
    if (!std::isfinite(best)) continue;
    PriorRanking model({options.points, options.failure_penalty},
                       context.cost_model ? context.cost_model : gaussian_process_factory(), seed);
    const auto width = static_cast<Eigen::Index>(features.width());
    if (!model.fit(others, features, Eigen::MatrixXd(0, width))) continue;
    Eigen::VectorXd mean;
    const Eigen::VectorXd bound = judge.optimistic(model, others, configs, place, &mean);
    const std::unordered_set<uint64_t> measured = measured_configs(others, context.space);
    double need = std::numeric_limits<double>::infinity();
    bool informed = false;
    for (size_t i = 0; i < configs.size(); ++i) {
      const Measurement& m = *of[i];
      if (m.status == Status::kOk && !m.samples_ms.empty() &&
          m.median_ms() <= best * options.near) {
        need = std::min(need, bound(static_cast<Eigen::Index>(i)));
        informed = informed || measured.count(configs[i]) > 0;
      }
    }
    if (informed) needs.push_back(std::max(0.0, need - mean.minCoeff()));
  }
  return needs;
}

}  // namespace

PruneResult prune_by_prior(const StrategyContext& context, uint64_t keep,
                           const PruneOptions& options, uint64_t seed) {
  const auto start = Clock::now();
  PruneResult result;
  if (context.prior.empty()) {
    result.skipped = "no prior data";
    return result;
  }
  std::vector<uint64_t> configs;
  if (!valid_configs(context.space, options.max_configs, &configs, &result.skipped)) {
    return result;
  }
  result.considered = configs.size();
  WorkloadFeatures features(context);
  PriorRanking ranking({options.points, options.failure_penalty},
                       context.cost_model ? context.cost_model : gaussian_process_factory(), seed);
  if (configs.empty() ||
      !ranking.fit(context.prior, features,
                   Eigen::MatrixXd(0, static_cast<Eigen::Index>(features.width())))) {
    result.skipped = "the prior data hold no config of this space";
    return result;
  }
  for (const PriorData& set : context.prior) {
    result.prior_labels.push_back(set.label);
    result.prior_measurements += set.measurements.size();
  }
  result.prior_workloads = context.prior.size();
  result.fit_points = ranking.used();

  const std::vector<double> needs = held_out_needs(context, features, options, seed);
  double need = std::log(options.unchecked);
  if (!needs.empty()) {
    need = *std::max_element(needs.begin(), needs.end());
    result.held_out = needs.size();
    result.held_out_factor = std::exp(need);
  }
  const double threshold = std::max(std::log(options.above), need + std::log(options.margin));
  result.factor = std::exp(threshold);

  Eigen::VectorXd mean;
  const Eigen::VectorXd bound =
      Judgement(context, features, options)
          .optimistic(ranking, context.prior, configs, {features.problem_values(), 0}, &mean);
  const double best = mean.minCoeff();
  for (size_t r = 0; r < configs.size(); ++r) {
    const auto i = static_cast<Eigen::Index>(r);
    if (configs[r] != keep && bound(i) > best + threshold) {
      result.pruned.push_back(configs[r]);
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

std::string prune_reason(const PruneResult& result) {
  return "predicted by the cost model to be more than " + factor_text(result.factor) +
         "x slower than the best";
}

}  // namespace gputune
