#include "strategy/prior_ranking.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

#include "strategy/acquisition.h"
#include "strategy/permutation.h"

namespace gputune {
namespace {
using Clock = std::chrono::steady_clock;
constexpr size_t kRankingPicks = 16;  // picks a held-out ranking is judged on
}  // namespace

PriorRanking::PriorRanking(Options options, CostModelFactory make_model, uint64_t seed)
    : options_(options), make_model_(std::move(make_model)), seed_(seed) {}

// A model on prior rows `subset` (of `rows`), on their first `columns` features. The best
// configs matter most for ranking, so the fit keeps all of the best half of its budget and a
// seeded spread of the rest.
std::unique_ptr<CostModel> PriorRanking::fit_rows(const std::vector<std::vector<double>>& rows,
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
    RandomPermutation pick(rest, seed_ ^ 0x9e1);
    for (size_t i = 0; keep.size() < limit; ++i) keep.push_back(subset[limit / 2 + pick(i)]);
  }
  Eigen::MatrixXd x(keep.size(), columns);
  Eigen::VectorXd y(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) {
    x.row(i) = Eigen::Map<const Eigen::RowVectorXd>(rows[keep[i]].data(), columns);
    y(i) = targets[keep[i]];
  }
  std::unique_ptr<CostModel> model = make_model_();
  model->fit(x, y);
  if (used) *used = keep.size();
  return model;
}

// How well a model fit on `others` (rows of other workloads) ranks `held` (rows of one
// workload); lower is better.
double PriorRanking::ranking_cost(const std::vector<std::vector<double>>& rows,
                                  const std::vector<double>& targets,
                                  const std::vector<size_t>& held,
                                  const std::vector<size_t>& others, Eigen::Index columns) const {
  // Half the points of the final fit: a quarter to an eighth of its cost, enough to rank.
  auto model = fit_rows(rows, targets, others, columns, options_.points / 2, nullptr);
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

bool PriorRanking::fit(const std::vector<PriorData>& sets, const WorkloadFeatures& features,
                       const Eigen::MatrixXd& candidate_x) {
  const auto start = Clock::now();
  model_.reset();
  columns_ = static_cast<Eigen::Index>(features.base_width());
  std::vector<std::vector<double>> rows;
  std::vector<double> targets;
  std::vector<std::vector<size_t>> of_set;      // row numbers per workload
  std::vector<std::vector<double>> set_values;  // problem values per workload
  for (const PriorData& set : sets) {
    const std::vector<double> values = features.values_of(set);
    std::vector<double> ok_logs;
    for (const Measurement& m : set.measurements) {
      double log_ms = 0;
      if (ok_log_time(m, &log_ms)) ok_logs.push_back(log_ms);
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
      auto row = features.prior_row(m, values, set.sm_count);
      if (!row) continue;
      double log_ms = 0;
      bool ok = ok_log_time(m, &log_ms);
      of_set.back().push_back(rows.size());
      rows.push_back(std::move(*row));
      targets.push_back((ok ? log_ms : worst + options_.failure_penalty) - centre);
    }
  }
  if (rows.empty()) return false;
  // Geometry features carry what one workload says to another only where time follows the
  // launch geometry; within one workload they are a function of the parameters, so the data
  // can tell only across problem sizes. Each prior workload is held out in turn and ranked
  // by a model of the workloads at other problem values, with and without them; they stay
  // if that ranks better. Without two problem sizes to test on, they are left out.
  if (features.geometry()) {
    const auto width = static_cast<Eigen::Index>(features.width());
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
      with += ranking_cost(rows, targets, of_set[h], others, width);
      without += ranking_cost(rows, targets, of_set[h], others, columns_);
      ++held_out;
    }
    if (held_out > 0 && with < without) columns_ = width;
  }
  std::vector<size_t> all(rows.size());
  std::iota(all.begin(), all.end(), 0);
  model_ = fit_rows(rows, targets, all, columns_, options_.points, &used_);
  if (candidate_x.rows() > 0) {
    model_->predict(candidate_x.leftCols(columns_), &candidate_mean_, nullptr);
  } else {
    candidate_mean_.resize(0);
  }
  order_.resize(static_cast<size_t>(candidate_x.rows()));
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(), [&](Eigen::Index a, Eigen::Index b) {
    return candidate_mean_(a) < candidate_mean_(b);
  });
  kept_geometry_ = columns_ > static_cast<Eigen::Index>(features.base_width());
  fit_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return true;
}

void PriorRanking::predict(const Eigen::MatrixXd& x, Eigen::VectorXd* mean,
                           Eigen::VectorXd* stddev) const {
  model_->predict(x.leftCols(columns_), mean, stddev);
}

double PriorRanking::predict(const std::vector<double>& row) const {
  Eigen::MatrixXd x = Eigen::Map<const Eigen::RowVectorXd>(row.data(), columns_);
  Eigen::VectorXd mean;
  model_->predict(x, &mean, nullptr);
  return mean(0);
}

}  // namespace gputune
