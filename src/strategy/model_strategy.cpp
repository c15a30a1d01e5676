#include "strategy/model_strategy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "strategy/acquisition.h"
#include "strategy/candidate_pool.h"
#include "strategy/observation_targets.h"
#include "strategy/permutation.h"
#include "strategy/prior_ranking.h"
#include "strategy/registry.h"
#include "strategy/workload_features.h"

namespace gputune {
namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

struct ModelStrategy::Impl {
  // The best config by expected improvement among those considered so far.
  struct Choice {
    bool found = false;
    double ei = -1, mean = 0;
    uint64_t index = 0;
  };

  uint64_t seed;
  ModelStrategyOptions options;

  const SearchSpace* space = nullptr;
  std::unique_ptr<WorkloadFeatures> features;
  std::vector<uint64_t> candidates;
  std::unordered_map<uint64_t, Eigen::Index> candidate_row;
  Eigen::RowVectorXd x_mean, x_scale;
  // Features of this workload's model: the prior's, or without a prior no geometry (within one
  // workload it only re-encodes the parameters).
  Eigen::Index model_columns = 0;
  std::unique_ptr<CandidatePosterior> posterior;
  std::unique_ptr<PriorRanking> prior;  // null without usable prior data
  size_t prior_next = 0;
  std::unique_ptr<RandomPermutation> random_order;
  uint64_t random_next = 0;

  std::vector<Observation> observations;
  std::unordered_map<uint64_t, size_t> observation_of;
  std::vector<bool> row_proposed;
  size_t selected_at = 0;  // real results at the last hyperparameter selection
  double prior_a = 0, prior_b = 1;
  double best_observed = std::numeric_limits<double>::infinity();
  size_t stalled = 0;            // observations since the best last improved
  bool prior_dismissed = false;  // once it stalled: what it ranks next is no better
  ModelStrategyStats stats;

  void start(const StrategyContext& context);
  Eigen::RowVectorXd standardised(uint64_t index) const;
  double prior_of(uint64_t index) const;
  void add(uint64_t index, double believed);
  size_t real_ok() const;
  bool next_in_order(uint64_t* index);
  void maybe_select_hyperparameters(const Eigen::VectorXd& residual);
  std::vector<Eigen::Index> local_rows() const;
  void consider_outside_sample(const Eigen::VectorXd& y, const Eigen::VectorXd& residual,
                               double best, Choice* choice) const;
  bool model_step(uint64_t* chosen, const ModelStrategy::CandidateFilter& allowed = {});
};

void ModelStrategy::Impl::start(const StrategyContext& context) {
  space = &context.space;
  features = std::make_unique<WorkloadFeatures>(context);
  candidates = candidate_configs(*space, options.candidate_limit, seed ^ 0x5eed);
  candidate_row.clear();
  for (size_t r = 0; r < candidates.size(); ++r) {
    candidate_row[candidates[r]] = static_cast<Eigen::Index>(r);
  }
  const Eigen::Index m = static_cast<Eigen::Index>(candidates.size());
  Eigen::MatrixXd x(m, features->width());
  for (Eigen::Index r = 0; r < m; ++r) {
    std::vector<double> row = features->row(candidates[r]);
    x.row(r) = Eigen::Map<Eigen::RowVectorXd>(row.data(), row.size());
  }
  x_mean = x.colwise().mean();
  x_scale = ((x.rowwise() - x_mean).array().square().colwise().sum() / std::max<Eigen::Index>(m, 1))
                .sqrt();
  for (Eigen::Index j = 0; j < x_scale.size(); ++j) {
    if (!(x_scale(j) > 1e-12)) x_scale(j) = 1;
  }
  prior.reset();
  if (!context.prior.empty() && m > 0) {
    auto ranking = std::make_unique<PriorRanking>(
        PriorRanking::Options{options.prior_points, options.failure_penalty},
        context.cost_model ? context.cost_model : gaussian_process_factory(options.gp), seed);
    if (ranking->fit(context.prior, *features, x)) {
      prior = std::move(ranking);
      stats.prior_used = prior->used();
      stats.prior_geometry = prior->kept_geometry();
      stats.prior_fit_ms = prior->fit_ms();
    }
  }
  model_columns = prior ? prior->columns() : static_cast<Eigen::Index>(features->base_width());
  Eigen::MatrixXd standardised_x =
      (x.leftCols(model_columns).rowwise() - x_mean.head(model_columns)).array().rowwise() /
      x_scale.head(model_columns).array();
  posterior = std::make_unique<CandidatePosterior>(options.gp.kernel, std::move(standardised_x));
  random_order = std::make_unique<RandomPermutation>(std::max<uint64_t>(m, 1), seed);
  random_next = 0;
  prior_next = 0;
  observations.clear();
  observation_of.clear();
  row_proposed.assign(m, false);
  selected_at = 0;
  best_observed = std::numeric_limits<double>::infinity();
  stalled = 0;
  prior_dismissed = false;
}

Eigen::RowVectorXd ModelStrategy::Impl::standardised(uint64_t index) const {
  std::vector<double> row = features->row(index);
  Eigen::RowVectorXd x = Eigen::Map<Eigen::RowVectorXd>(row.data(), model_columns);
  return (x - x_mean.head(model_columns)).array() / x_scale.head(model_columns).array();
}

double ModelStrategy::Impl::prior_of(uint64_t index) const {
  if (!prior) return 0;
  auto found = candidate_row.find(index);
  if (found != candidate_row.end()) return prior->candidate_mean()(found->second);
  return prior->predict(features->row(index));
}

void ModelStrategy::Impl::add(uint64_t index, double believed) {
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

size_t ModelStrategy::Impl::real_ok() const {
  size_t n = 0;
  for (const auto& o : observations) n += o.observed && o.ok;
  return n;
}

// The next config by a fixed order (random, or the prior's ranking); false when exhausted.
bool ModelStrategy::Impl::next_in_order(uint64_t* index) {
  if (prior) {
    const std::vector<Eigen::Index>& order = prior->order();
    while (prior_next < order.size()) {
      Eigen::Index row = order[prior_next++];
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

void ModelStrategy::Impl::maybe_select_hyperparameters(const Eigen::VectorXd& residual) {
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

// Candidate rows next to the two best configs found, not proposed yet.
std::vector<Eigen::Index> ModelStrategy::Impl::local_rows() const {
  std::vector<std::pair<double, uint64_t>> ranked;
  for (const auto& o : observations) {
    if (o.observed && o.ok) ranked.push_back({o.log_ms, o.index});
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<Eigen::Index> local;
  for (size_t k = 0; k < std::min<size_t>(2, ranked.size()); ++k) {
    for (uint64_t n : space->neighbours(ranked[k].second)) {
      auto row = candidate_row.find(n);
      if (row != candidate_row.end() && !row_proposed[row->second]) local.push_back(row->second);
    }
  }
  return local;
}

// A sampled space may hold better configs next to the best ones found than in the sample.
void ModelStrategy::Impl::consider_outside_sample(const Eigen::VectorXd& y,
                                                  const Eigen::VectorXd& residual, double best,
                                                  Choice* choice) const {
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
  if (extra.empty()) return;
  Eigen::MatrixXd x(extra.size(), model_columns);
  for (size_t k = 0; k < extra.size(); ++k) x.row(k) = standardised(extra[k]);
  Eigen::VectorXd m, s;
  posterior->predict_points(x, residual, &m, &s);
  for (size_t k = 0; k < extra.size(); ++k) {
    double full = m(k) + (prior ? prior_a + prior_b * prior_of(extra[k]) : 0.0);
    double ei = expected_improvement(best, full, s(k), options.exploration);
    if (ei > choice->ei) *choice = {true, ei, full, extra[k]};
  }
}

// One config chosen by expected improvement, added with its predicted time as believed.
bool ModelStrategy::Impl::model_step(uint64_t* chosen,
                                     const ModelStrategy::CandidateFilter& allowed) {
  const auto start = Clock::now();
  ObservationTargets t = observation_targets(observations, options.failure_penalty, !!prior);
  // Kept for configs outside the sample, which the prior predicts one at a time.
  prior_a = t.a;
  prior_b = t.b;
  Eigen::VectorXd& y = t.y;
  Eigen::VectorXd& base = t.base;
  const double best = t.best;
  // The prior steers until its picks stall. Data from another problem size or GPU can rank
  // the top of the space wrong (small problems favour small tiles); from the stall on, a
  // plain model of this workload's results decides, for the rest of the search.
  if (stalled >= options.prior_patience) prior_dismissed = true;
  const bool trust_prior = prior && !prior_dismissed;
  if (prior && !trust_prior) base.setConstant(y.mean());
  Eigen::VectorXd residual = y - base;
  maybe_select_hyperparameters(residual);
  Eigen::VectorXd mean, stddev;
  posterior->predict(residual, &mean, &stddev);
  if (trust_prior) {
    mean.array() += prior_a + prior_b * prior->candidate_mean().array();
  } else if (prior) {
    mean.array() += base(0);
  }

  Choice choice;
  auto consider = [&](Eigen::Index r) {
    double ei = expected_improvement(best, mean(r), stddev(r), options.exploration);
    if (ei > choice.ei || (ei == choice.ei && mean(r) < choice.mean)) {
      choice = {true, ei, mean(r), candidates[r]};
    }
  };
  if (allowed) {
    // Another strategy's narrower choice, within the sample only.
    for (Eigen::Index r = 0; r < mean.size(); ++r) {
      if (!row_proposed[r] && allowed(candidates[r])) consider(r);
    }
  } else {
    // Every few steps of a cold search the choice is limited to the neighbours of the best
    // configs: an isotropic kernel smooths over the interactions that decide the last few
    // percent, which a local step finds. A trusted prior's mean function carries them.
    std::vector<Eigen::Index> local;
    if (!trust_prior && options.local_every > 0 &&
        stats.model_steps % options.local_every == options.local_every - 1) {
      local = local_rows();
    }
    if (!local.empty()) {
      for (Eigen::Index r : local) consider(r);
    } else {
      for (Eigen::Index r = 0; r < mean.size(); ++r) {
        if (!row_proposed[r]) consider(r);
      }
    }
    if (candidates.size() >= options.candidate_limit) {
      consider_outside_sample(y, residual, best, &choice);
    }
  }
  if (choice.found) {
    *chosen = choice.index;
    add(choice.index, choice.mean);
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ++stats.model_steps;
  stats.total_ms += ms;
  stats.max_ms = std::max(stats.max_ms, ms);
  return choice.found;
}

ModelStrategy::ModelStrategy(uint64_t seed, ModelStrategyOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->seed = seed;
  impl_->options = std::move(options);
}

ModelStrategy::~ModelStrategy() = default;

void ModelStrategy::start(const StrategyContext& context) { impl_->start(context); }

std::vector<uint64_t> ModelStrategy::propose(size_t max_batch) {
  Impl& s = *impl_;
  std::vector<uint64_t> batch;
  while (batch.size() < max_batch) {
    uint64_t index = 0;
    const bool warm_up = s.prior
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
    if (found == s.observation_of.end()) {
      // A config another strategy proposed (the rules' pick): learnt from as if proposed here.
      if (m.config_index >= s.space->size()) continue;
      s.add(m.config_index, 0);
      s.observations.back().placeholder = true;
      found = s.observation_of.find(m.config_index);
    }
    Observation& o = s.observations[found->second];
    o.observed = true;
    o.ok = ok_log_time(m, &o.log_ms);
    if (o.ok && o.log_ms < s.best_observed - 1e-3) {
      s.best_observed = o.log_ms;
      s.stalled = 0;
    } else {
      ++s.stalled;
    }
  }
}

std::optional<uint64_t> ModelStrategy::propose_among(const CandidateFilter& allowed) {
  uint64_t index = 0;
  if (!impl_->model_step(&index, allowed)) return std::nullopt;
  return index;
}

const ModelStrategyStats& ModelStrategy::stats() const { return impl_->stats; }

namespace {
const StrategyRegistrar kRegistrar{
    {"model", 50, [](uint64_t seed) { return std::make_unique<ModelStrategy>(seed); }}};
}  // namespace

}  // namespace gputune
