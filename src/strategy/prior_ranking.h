#pragma once
#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/cost_model.h"
#include "strategy/strategy.h"
#include "strategy/workload_features.h"

namespace gputune {

// A cost model fit on other workloads' measurements, each centred on its own median: it ranks
// this workload's candidates before anything is measured, and its prediction is the mean
// function that a model of this workload's results corrects.
class PriorRanking {
 public:
  struct Options {
    size_t points = 300;         // prior measurements the model is fit on, at most
    double failure_penalty = 1;  // a failure's target: its workload's worst ok log time plus this
  };
  PriorRanking(Options options, CostModelFactory make_model, uint64_t seed);

  // Fits on `sets` and ranks `candidates` (whose full-width rows are `candidate_x`, which may
  // have none); false, with no model, when the sets hold nothing this space can use.
  bool fit(const std::vector<PriorData>& sets, const WorkloadFeatures& features,
           const Eigen::MatrixXd& candidate_x);

  // Features the model uses: with the launch-geometry features or without.
  Eigen::Index columns() const { return columns_; }
  bool kept_geometry() const { return kept_geometry_; }
  size_t used() const { return used_; }  // prior measurements fit on
  double fit_ms() const { return fit_ms_; }
  const Eigen::VectorXd& candidate_mean() const { return candidate_mean_; }
  const std::vector<Eigen::Index>& order() const { return order_; }  // most promising first
  // The model's prediction for a full-width row.
  double predict(const std::vector<double>& row) const;
  // Predicted log time (centred, as the targets) and its standard deviation, for full-width
  // rows.
  void predict(const Eigen::MatrixXd& x, Eigen::VectorXd* mean, Eigen::VectorXd* stddev) const;

 private:
  std::unique_ptr<CostModel> fit_rows(const std::vector<std::vector<double>>& rows,
                                      const std::vector<double>& targets,
                                      std::vector<size_t> subset, Eigen::Index columns,
                                      size_t limit, size_t* used) const;
  double ranking_cost(const std::vector<std::vector<double>>& rows,
                      const std::vector<double>& targets, const std::vector<size_t>& held,
                      const std::vector<size_t>& others, Eigen::Index columns) const;

  Options options_;
  CostModelFactory make_model_;
  uint64_t seed_;
  std::unique_ptr<CostModel> model_;
  Eigen::Index columns_ = 0;
  bool kept_geometry_ = false;
  size_t used_ = 0;
  double fit_ms_ = 0;
  Eigen::VectorXd candidate_mean_;
  std::vector<Eigen::Index> order_;
};

}  // namespace gputune
