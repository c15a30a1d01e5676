#include "strategy/model_strategy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "model/features.h"
#include "strategy/local_strategies.h"
#include "strategy/permutation.h"

namespace gputune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kRankingPicks = 16;             // picks a held-out ranking is judged on
constexpr uint64_t kEnumerateLimit = 2'000'000;  // products walked whole to find valid configs

double expected_improvement(double best, double mean, double stddev, double margin) {
  const double gain = best - mean - margin;
  if (stddev <= 1e-12) return std::max(gain, 0.0);
  const double z = gain / stddev;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  return gain * cdf + stddev * pdf;
}

bool ok_time(const Measurement& m, double* log_ms) {
  if (m.status != Status::kOk) return false;
  const double median = m.median_ms();
  if (!(median > 0)) return false;
  *log_ms = std::log(median);
  return true;
}

}  // namespace

struct ModelStrategy::Impl {
  struct Observation {
    uint64_t index = 0;
    double prior = 0;          // prior model's prediction, 0 without one
    double believed = 0;       // the model's mean when proposed: the target until a result comes
    bool placeholder = false;  // proposed before any model: no belief of its own
    bool observed = false, ok = false;
    double log_ms = 0;
  };

  uint64_t seed;
  ModelStrategyOptions options;
  std::vector<std::string> problem_names;
  std::vector<double> problem_values;
  std::vector<PriorData> prior_sets;
  LaunchOf launch;  // with sm_count > 0: launch-geometry features
  int sm_count = 0;
  std::unordered_map<uint64_t, ResourceUsage> known_resources;  // per config, from prior data

  const SearchSpace* space = nullptr;
  std::unique_ptr<FeatureMap> features;
  std::vector<uint64_t> candidates;
  std::unordered_map<uint64_t, Eigen::Index> candidate_row;
  Eigen::RowVectorXd x_mean, x_scale;
  std::unique_ptr<CandidatePosterior> posterior;
  std::unique_ptr<GaussianProcess> prior_model;
  Eigen::VectorXd prior_mean;             // per candidate
  std::vector<Eigen::Index> prior_order;  // candidates, most promising first
  size_t prior_next = 0;
  std::unique_ptr<RandomPermutation> random_order;
  uint64_t random_next = 0;

  std::vector<Observation> observations;
  std::unordered_map<uint64_t, size_t> observation_of;
  std::vector<bool> row_proposed;
  size_t selected_at = 0;  // real results at the last hyperparameter selection
  ModelStrategyStats stats;

  bool geometry() const { return launch && sm_count > 0; }
  size_t width() const {
    return features->size() + (geometry() ? geometry_feature_names().size() : 0);
  }

  // Features of a config at some problem values on a GPU of `sms` SMs.
  std::vector<double> row_at(uint64_t index, std::vector<double> row,
                             const std::vector<double>& values, int sms) const {
    if (!geometry()) return row;
    std::vector<std::pair<std::string, double>> named;
    for (size_t p = 0; p < problem_names.size(); ++p) {
      named.push_back({problem_names[p], values[p]});
    }
    std::optional<LaunchShape> shape = launch(index, named);
    auto known = known_resources.find(index);
    std::vector<double> extra = geometry_features(
        shape ? *shape : LaunchShape{1, 256, 0},
        known == known_resources.end() ? nullptr : &known->second, sms > 0 ? sms : sm_count);
    row.insert(row.end(), extra.begin(), extra.end());
    return row;
  }
  std::vector<double> row_of(uint64_t index) const {
    return row_at(index, features->row(index, problem_values), problem_values, sm_count);
  }

  Eigen::RowVectorXd standardised(uint64_t index) const {
    std::vector<double> row = row_of(index);
    Eigen::RowVectorXd x = Eigen::Map<Eigen::RowVectorXd>(row.data(), model_columns);
    return (x - x_mean.head(model_columns)).array() / x_scale.head(model_columns).array();
  }

  double prior_of(uint64_t index) const {
    if (!prior_model) return 0;
    auto found = candidate_row.find(index);
    if (found != candidate_row.end()) return prior_mean(found->second);
    std::vector<double> row = row_of(index);
    Eigen::MatrixXd x = Eigen::Map<Eigen::RowVectorXd>(row.data(), prior_columns);
    Eigen::VectorXd mean;
    prior_model->predict(x, &mean, nullptr);
    return mean(0);
  }

  void collect_candidates() {
    candidates.clear();
    if (space->size() <= kEnumerateLimit) {
      for (uint64_t i = 0; i < space->size(); ++i) {
        if (space->valid(i)) candidates.push_back(i);
      }
      if (candidates.size() > options.candidate_limit) {
        RandomPermutation pick(candidates.size(), seed ^ 0x5eed);
        std::vector<uint64_t> sample;
        for (size_t i = 0; i < options.candidate_limit; ++i) sample.push_back(candidates[pick(i)]);
        std::sort(sample.begin(), sample.end());
        candidates = std::move(sample);
      }
    } else {
      RandomPermutation pick(space->size(), seed ^ 0x5eed);
      const uint64_t tries = std::min<uint64_t>(space->size(), 50 * options.candidate_limit);
      for (uint64_t i = 0; i < tries && candidates.size() < options.candidate_limit; ++i) {
        uint64_t index = pick(i);
        if (space->valid(index)) candidates.push_back(index);
      }
      std::sort(candidates.begin(), candidates.end());
    }
    for (size_t r = 0; r < candidates.size(); ++r) {
      candidate_row[candidates[r]] = static_cast<Eigen::Index>(r);
    }
  }

  // A GP on prior rows `subset` (of `rows`), on their first `columns` features. The best
  // configs matter most for ranking, so the fit keeps all of the best half of its budget and a
  // seeded spread of the rest.
  std::unique_ptr<GaussianProcess> fit_rows(const std::vector<std::vector<double>>& rows,
                                            const std::vector<double>& targets,
                                            std::vector<size_t> subset, Eigen::Index columns,
                                            size_t limit, size_t* used) const {
    std::stable_sort(subset.begin(), subset.end(),
                     [&](size_t a, size_t b) { return targets[a] < targets[b]; });
    std::vector<size_t> keep;
    limit = std::max<size_t>(limit, 2);
    if (subset.size() <= limit) {
      keep = subset;
    } else {
      keep.assign(subset.begin(), subset.begin() + limit / 2);
      const size_t rest = subset.size() - limit / 2;
      RandomPermutation pick(rest, seed ^ 0x9e1);
      for (size_t i = 0; keep.size() < limit; ++i) keep.push_back(subset[limit / 2 + pick(i)]);
    }
    Eigen::MatrixXd x(keep.size(), columns);
    Eigen::VectorXd y(keep.size());
    for (size_t i = 0; i < keep.size(); ++i) {
      x.row(i) = Eigen::Map<const Eigen::RowVectorXd>(rows[keep[i]].data(), columns);
      y(i) = targets[keep[i]];
    }
    auto model = std::make_unique<GaussianProcess>(options.gp);
    model->fit(x, y);
    if (used) *used = keep.size();
    return model;
  }

  // How well a model fit on `others` (rows of other workloads) ranks `held` (rows of one
  // workload); lower is better.
  double ranking_cost(const std::vector<std::vector<double>>& rows,
                      const std::vector<double>& targets, const std::vector<size_t>& held,
                      const std::vector<size_t>& others, Eigen::Index columns) const {
    // Half the points of the final fit: a quarter to an eighth of its cost, enough to rank.
    auto model = fit_rows(rows, targets, others, columns, options.prior_points / 2, nullptr);
    Eigen::MatrixXd x(held.size(), columns);
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < held.size(); ++i) {
      x.row(i) = Eigen::Map<const Eigen::RowVectorXd>(rows[held[i]].data(), columns);
      best = std::min(best, targets[held[i]]);
    }
    Eigen::VectorXd mean;
    model->predict(x, &mean, nullptr);
    std::vector<size_t> order(held.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return mean(a) < mean(b); });
    // The regret (log time above the best) of the best config among the first k picks,
    // summed over k: what a search that followed this ranking would have lost.
    double found = std::numeric_limits<double>::infinity(), cost = 0;
    for (size_t k = 0; k < std::min<size_t>(order.size(), kRankingPicks); ++k) {
      found = std::min(found, targets[held[order[k]]]);
      cost += found - best;
    }
    return cost;
  }

  void fit_prior(const std::vector<PriorData>& sets, const Eigen::MatrixXd& candidate_x) {
    const auto start = Clock::now();
    std::vector<std::vector<double>> rows;
    std::vector<double> targets;
    std::vector<std::vector<size_t>> of_set;      // row numbers per workload
    std::vector<std::vector<double>> set_values;  // problem values per workload
    for (const PriorData& set : sets) {
      std::vector<double> values = problem_values;
      for (size_t p = 0; p < problem_names.size(); ++p) {
        for (const auto& [name, value] : set.problem_values) {
          if (name == problem_names[p]) values[p] = value;
        }
      }
      std::vector<double> ok_logs;
      for (const Measurement& m : set.measurements) {
        double log_ms = 0;
        if (ok_time(m, &log_ms)) ok_logs.push_back(log_ms);
      }
      if (ok_logs.empty()) continue;
      // Each workload is centred on its own median, so a faster GPU or a smaller problem
      // shifts nothing: the prior carries the shape of the space, not its scale.
      std::nth_element(ok_logs.begin(), ok_logs.begin() + ok_logs.size() / 2, ok_logs.end());
      const double centre = ok_logs[ok_logs.size() / 2];
      const double worst = *std::max_element(ok_logs.begin(), ok_logs.end());
      of_set.emplace_back();
      set_values.push_back(values);
      for (const Measurement& m : set.measurements) {
        auto row = features->row_from_json(m.config, values);
        if (!row) continue;
        if (geometry()) {
          std::optional<uint64_t> index = index_from_json(*space, m.config);
          if (!index) continue;
          row = row_at(*index, std::move(*row), values, set.sm_count);
        }
        double log_ms = 0;
        bool ok = ok_time(m, &log_ms);
        of_set.back().push_back(rows.size());
        rows.push_back(std::move(*row));
        targets.push_back((ok ? log_ms : worst + options.failure_penalty) - centre);
      }
    }
    if (rows.empty()) return;
    // Geometry features carry what one workload says to another only where time follows the
    // launch geometry; within one workload they are a function of the parameters, so the data
    // can tell only across problem sizes. Each prior workload is held out in turn and ranked
    // by a model of the workloads at other problem values, with and without them; they stay
    // if that ranks better. Without two problem sizes to test on, they are left out.
    prior_columns = static_cast<Eigen::Index>(features->size());
    if (geometry()) {
      double with = 0, without = 0;
      size_t held_out = 0;
      for (size_t h = 0; h < of_set.size() && of_set.size() >= 2; ++h) {
        if (of_set[h].empty()) continue;
        std::vector<size_t> others;
        for (size_t o = 0; o < of_set.size(); ++o) {
          if (set_values[o] != set_values[h]) {
            others.insert(others.end(), of_set[o].begin(), of_set[o].end());
          }
        }
        if (others.empty()) continue;
        with += ranking_cost(rows, targets, of_set[h], others, width());
        without += ranking_cost(rows, targets, of_set[h], others, prior_columns);
        ++held_out;
      }
      if (held_out > 0 && with < without) prior_columns = width();
    }
    std::vector<size_t> all(rows.size());
    std::iota(all.begin(), all.end(), 0);
    size_t used = 0;
    prior_model = fit_rows(rows, targets, all, prior_columns, options.prior_points, &used);
    prior_model->predict(candidate_x.leftCols(prior_columns), &prior_mean, nullptr);
    prior_order.resize(candidates.size());
    std::iota(prior_order.begin(), prior_order.end(), 0);
    std::stable_sort(prior_order.begin(), prior_order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return prior_mean(a) < prior_mean(b); });
    stats.prior_used = used;
    stats.prior_geometry = prior_columns > static_cast<Eigen::Index>(features->size());
    stats.prior_fit_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  Eigen::Index prior_columns = 0;  // features the prior model uses: with geometry or without
  // Features of this workload's model: the prior's, or without a prior no geometry (within one
  // workload it only re-encodes the parameters).
  Eigen::Index model_columns = 0;

  void add(uint64_t index, double believed) {
    Observation o;
    o.index = index;
    o.prior = prior_of(index);
    o.believed = believed;
    observation_of[index] = observations.size();
    observations.push_back(o);
    auto row = candidate_row.find(index);
    if (row != candidate_row.end()) row_proposed[row->second] = true;
    posterior->add(standardised(index));
  }

  size_t real_ok() const {
    size_t n = 0;
    for (const auto& o : observations) n += o.observed && o.ok;
    return n;
  }

  // The next config by a fixed order (random, or the prior's ranking); npos when exhausted.
  bool next_in_order(uint64_t* index) {
    if (prior_model) {
      while (prior_next < prior_order.size()) {
        Eigen::Index row = prior_order[prior_next++];
        if (!row_proposed[row]) {
          *index = candidates[row];
          return true;
        }
      }
      return false;
    }
    while (random_next < candidates.size()) {
      Eigen::Index row = static_cast<Eigen::Index>((*random_order)(random_next++));
      if (!row_proposed[row]) {
        *index = candidates[row];
        return true;
      }
    }
    return false;
  }

  // Targets for every observation (real, penalty or believed) and the offset the prior gives.
  void targets(Eigen::VectorXd* y, Eigen::VectorXd* base, double* best) {
    const size_t n = observations.size();
    double worst = -std::numeric_limits<double>::infinity();
    *best = std::numeric_limits<double>::infinity();
    for (const auto& o : observations) {
      if (o.observed && o.ok) {
        worst = std::max(worst, o.log_ms);
        *best = std::min(*best, o.log_ms);
      }
    }
    // Failures count as worse than anything seen: they cluster (resource limits, bad tilings),
    // and a model that ignored them would keep finding those regions unexplored and promising.
    const double penalty = std::isfinite(worst) ? worst + options.failure_penalty : 0.0;
    y->resize(n);
    base->setZero(n);
    double sum = 0;
    size_t real = 0;
    for (size_t i = 0; i < n; ++i) {
      const Observation& o = observations[i];
      (*y)(i) = !o.observed ? o.believed : o.ok ? o.log_ms : penalty;
      if (o.observed) sum += (*y)(i), ++real;
    }
    // Pending configs without a belief of their own take the mean of the results (a constant
    // liar), so that a batch still spreads out.
    for (size_t i = 0; i < n; ++i) {
      if (!observations[i].observed && observations[i].placeholder) {
        (*y)(i) = real > 0 ? sum / static_cast<double>(real) : 0.0;
      }
    }
    if (!prior_model) return;
    // log time ~ a + b * prior: the prior's shape, rescaled and shifted to this workload.
    double sp = 0, sy = 0, spp = 0, spy = 0, count = 0;
    for (const auto& o : observations) {
      if (!(o.observed && o.ok)) continue;
      sp += o.prior;
      sy += o.log_ms;
      spp += o.prior * o.prior;
      spy += o.prior * o.log_ms;
      ++count;
    }
    double b = 1, a = 0;
    if (count >= 4 && spp * count - sp * sp > 1e-9) {
      b = std::clamp((spy * count - sp * sy) / (spp * count - sp * sp), 0.3, 3.0);
    }
    if (count > 0) a = (sy - b * sp) / count;
    for (size_t i = 0; i < n; ++i) {
      (*base)(i) = a + b * observations[i].prior;
      if (!observations[i].observed && observations[i].placeholder) (*y)(i) = (*base)(i);
    }
    prior_a = a;
    prior_b = b;
  }
  double prior_a = 0, prior_b = 1;
  double best_observed = std::numeric_limits<double>::infinity();
  size_t stalled = 0;            // observations since the best last improved
  bool prior_dismissed = false;  // once it stalled: what it ranks next is no better

  void maybe_select_hyperparameters(const Eigen::VectorXd& residual) {
    std::vector<Eigen::Index> real;
    for (size_t i = 0; i < observations.size(); ++i) {
      if (observations[i].observed) real.push_back(static_cast<Eigen::Index>(i));
    }
    if (real.size() < 3) return;
    if (selected_at > 0 && real.size() < selected_at + std::max<size_t>(2, selected_at / 4)) {
      return;
    }
    selected_at = real.size();
    Eigen::MatrixXd all = posterior->observed();
    Eigen::MatrixXd x(real.size(), all.cols());
    Eigen::VectorXd y(real.size());
    for (size_t i = 0; i < real.size(); ++i) {
      x.row(i) = all.row(real[i]);
      y(i) = residual(real[i]);
    }
    GpHyperparameters h = gp_select(options.gp, x, y);
    const GpHyperparameters& now = posterior->hyperparameters();
    if (h.length != now.length || h.noise != now.noise || h.weights != now.weights) {
      posterior->set_hyperparameters(h);
    }
  }

  // One config chosen by expected improvement, added with its predicted time as believed.
  bool model_step(uint64_t* chosen) {
    const auto start = Clock::now();
    Eigen::VectorXd y, base;
    double best = 0;
    targets(&y, &base, &best);
    // The prior steers until its picks stall. Data from another problem size or GPU can rank
    // the top of the space wrong (small problems favour small tiles); from the stall on, a
    // plain model of this workload's results decides, for the rest of the search.
    if (stalled >= options.prior_patience) prior_dismissed = true;
    const bool trust_prior = prior_model && !prior_dismissed;
    if (prior_model && !trust_prior) base.setConstant(y.mean());
    Eigen::VectorXd residual = y - base;
    maybe_select_hyperparameters(residual);
    Eigen::VectorXd mean, stddev;
    posterior->predict(residual, &mean, &stddev);
    if (trust_prior) {
      mean.array() += prior_a + prior_b * prior_mean.array();
    } else if (prior_model) {
      mean.array() += base(0);
    }

    double best_ei = -1, chosen_mean = 0;
    bool found = false;
    // Every few steps of a cold search the choice is limited to the neighbours of the best
    // configs: an isotropic kernel smooths over the interactions that decide the last few
    // percent, which a local step finds. A trusted prior's mean function carries them.
    std::vector<Eigen::Index> local;
    if (!trust_prior && options.local_every > 0 &&
        stats.model_steps % options.local_every == options.local_every - 1) {
      std::vector<std::pair<double, uint64_t>> ranked;
      for (const auto& o : observations) {
        if (o.observed && o.ok) ranked.push_back({o.log_ms, o.index});
      }
      std::sort(ranked.begin(), ranked.end());
      for (size_t k = 0; k < std::min<size_t>(2, ranked.size()); ++k) {
        for (uint64_t n : space->neighbours(ranked[k].second)) {
          auto row = candidate_row.find(n);
          if (row != candidate_row.end() && !row_proposed[row->second]) {
            local.push_back(row->second);
          }
        }
      }
    }
    auto consider = [&](Eigen::Index r) {
      double ei = expected_improvement(best, mean(r), stddev(r), options.exploration);
      if (ei > best_ei || (ei == best_ei && mean(r) < chosen_mean)) {
        best_ei = ei;
        chosen_mean = mean(r);
        *chosen = candidates[r];
        found = true;
      }
    };
    if (!local.empty()) {
      for (Eigen::Index r : local) consider(r);
    } else {
      for (Eigen::Index r = 0; r < mean.size(); ++r) {
        if (!row_proposed[r]) consider(r);
      }
    }
    // A sampled space may hold better configs next to the best ones found than in the sample.
    if (candidates.size() >= options.candidate_limit) {
      std::vector<size_t> order(observations.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return y(a) < y(b); });
      std::vector<uint64_t> extra;
      for (size_t k = 0; k < std::min<size_t>(3, order.size()); ++k) {
        for (uint64_t n : space->neighbours(observations[order[k]].index)) {
          if (!candidate_row.count(n) && !observation_of.count(n)) extra.push_back(n);
        }
      }
      std::sort(extra.begin(), extra.end());
      extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
      if (!extra.empty()) {
        Eigen::MatrixXd x(extra.size(), model_columns);
        for (size_t k = 0; k < extra.size(); ++k) x.row(k) = standardised(extra[k]);
        Eigen::VectorXd m, s;
        posterior->predict_points(x, residual, &m, &s);
        for (size_t k = 0; k < extra.size(); ++k) {
          double full = m(k) + (prior_model ? prior_a + prior_b * prior_of(extra[k]) : 0.0);
          double ei = expected_improvement(best, full, s(k), options.exploration);
          if (ei > best_ei) {
            best_ei = ei;
            chosen_mean = full;
            *chosen = extra[k];
            found = true;
          }
        }
      }
    }
    if (found) add(*chosen, chosen_mean);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    ++stats.model_steps;
    stats.total_ms += ms;
    stats.max_ms = std::max(stats.max_ms, ms);
    return found;
  }
};

ModelStrategy::ModelStrategy(uint64_t seed, ModelStrategyOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->seed = seed;
  impl_->options = std::move(options);
}

ModelStrategy::~ModelStrategy() = default;

void ModelStrategy::set_problem_values(std::vector<std::pair<std::string, double>> values) {
  impl_->problem_names.clear();
  impl_->problem_values.clear();
  for (auto& [name, value] : values) {
    impl_->problem_names.push_back(name);
    impl_->problem_values.push_back(value);
  }
}

void ModelStrategy::set_prior(std::vector<PriorData> prior) {
  impl_->prior_sets = std::move(prior);
}

void ModelStrategy::set_launches(LaunchOf launch, int sm_count) {
  impl_->launch = std::move(launch);
  impl_->sm_count = sm_count;
}

void ModelStrategy::use_launches(LaunchOf launch, int sm_count) {
  set_launches(std::move(launch), sm_count);
}

void ModelStrategy::use_prior(const std::vector<std::pair<std::string, double>>& problem_values,
                              std::vector<PriorData> prior) {
  set_problem_values(problem_values);
  set_prior(std::move(prior));
}

void ModelStrategy::start(const SearchSpace& space, const std::vector<Measurement>& prior) {
  Impl& s = *impl_;
  s.space = &space;
  s.features = std::make_unique<FeatureMap>(space, s.problem_names);
  s.collect_candidates();
  // What the prior data says each config uses (registers do not change with problem values),
  // so that geometry features know how many blocks an SM holds before anything compiles.
  s.known_resources.clear();
  if (s.geometry()) {
    for (const PriorData& set : s.prior_sets) {
      for (const Measurement& pm : set.measurements) {
        if (pm.registers <= 0) continue;
        std::optional<uint64_t> index = index_from_json(space, pm.config);
        if (!index) continue;
        s.known_resources.emplace(*index,
                                  ResourceUsage{pm.registers, pm.shared_bytes, pm.spill_bytes, 0});
      }
    }
  }
  const Eigen::Index m = static_cast<Eigen::Index>(s.candidates.size());
  Eigen::MatrixXd x(m, s.width());
  for (Eigen::Index r = 0; r < m; ++r) {
    std::vector<double> row = s.row_of(s.candidates[r]);
    x.row(r) = Eigen::Map<Eigen::RowVectorXd>(row.data(), row.size());
  }
  s.x_mean = x.colwise().mean();
  s.x_scale =
      ((x.rowwise() - s.x_mean).array().square().colwise().sum() / std::max<Eigen::Index>(m, 1))
          .sqrt();
  for (Eigen::Index j = 0; j < s.x_scale.size(); ++j) {
    if (!(s.x_scale(j) > 1e-12)) s.x_scale(j) = 1;
  }
  std::vector<PriorData> sets = s.prior_sets;
  if (!prior.empty()) {
    PriorData same;
    for (size_t p = 0; p < s.problem_names.size(); ++p) {
      same.problem_values.push_back({s.problem_names[p], s.problem_values[p]});
    }
    same.measurements = prior;
    sets.push_back(std::move(same));
  }
  s.prior_model.reset();
  s.prior_columns = static_cast<Eigen::Index>(s.features->size());
  if (!sets.empty() && m > 0) s.fit_prior(sets, x);
  s.model_columns = s.prior_model ? s.prior_columns : static_cast<Eigen::Index>(s.features->size());
  Eigen::MatrixXd standardised =
      (x.leftCols(s.model_columns).rowwise() - s.x_mean.head(s.model_columns)).array().rowwise() /
      s.x_scale.head(s.model_columns).array();
  s.posterior = std::make_unique<CandidatePosterior>(s.options.gp.kernel, std::move(standardised));
  s.random_order = std::make_unique<RandomPermutation>(std::max<uint64_t>(m, 1), s.seed);
  s.random_next = 0;
  s.prior_next = 0;
  s.observations.clear();
  s.observation_of.clear();
  s.row_proposed.assign(m, false);
  s.selected_at = 0;
  s.best_observed = std::numeric_limits<double>::infinity();
  s.stalled = 0;
  s.prior_dismissed = false;
}

std::vector<uint64_t> ModelStrategy::propose(size_t max_batch) {
  Impl& s = *impl_;
  std::vector<uint64_t> batch;
  while (batch.size() < max_batch) {
    uint64_t index = 0;
    const bool warm_up = s.prior_model
                             ? s.real_ok() < 2
                             : s.observations.size() < s.options.initial_random || s.real_ok() == 0;
    if (warm_up) {
      if (!s.next_in_order(&index)) break;
      s.add(index, 0);
      s.observations.back().placeholder = true;
    } else if (!s.model_step(&index)) {
      break;
    }
    batch.push_back(index);
  }
  return batch;
}

void ModelStrategy::observe(const std::vector<Measurement>& results) {
  Impl& s = *impl_;
  for (const Measurement& m : results) {
    auto found = s.observation_of.find(m.config_index);
    if (found == s.observation_of.end()) continue;
    Impl::Observation& o = s.observations[found->second];
    o.observed = true;
    o.ok = ok_time(m, &o.log_ms);
    if (o.ok && o.log_ms < s.best_observed - 1e-3) {
      s.best_observed = o.log_ms;
      s.stalled = 0;
    } else {
      ++s.stalled;
    }
  }
}

const ModelStrategyStats& ModelStrategy::stats() const { return impl_->stats; }

std::unique_ptr<Strategy> make_model_strategy(uint64_t seed) {
  return std::make_unique<ModelStrategy>(seed);
}

}  // namespace gputune
