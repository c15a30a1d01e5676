#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/cost_model.h"
#include "strategy/strategy.h"

namespace gputune {

struct ModelStrategyOptions {
  size_t initial_random = 8;       // cold start: random configs before the model takes over
  size_t candidate_limit = 20000;  // the whole valid space up to this, else a seeded sample
  size_t prior_points = 300;       // prior measurements the prior model is fit on, at most
  double exploration = 0.01;       // expected improvement beyond this margin, in log time
  double failure_penalty = 1.0;    // a failure's target: the worst ok log time plus this
  size_t local_every = 4;          // every so many model steps, only the best's neighbours
  size_t prior_patience = 12;      // results without a new best before the prior stops steering
  GpOptions gp;
};

// Where proposal time went.
struct ModelStrategyStats {
  size_t model_steps = 0;           // configs chosen by the model
  double total_ms = 0, max_ms = 0;  // fit + predict per model step
  double prior_fit_ms = 0;
  size_t prior_used = 0;        // prior measurements the prior model was fit on
  bool prior_geometry = false;  // whether the prior model kept the launch-geometry features
};

// Model-guided search: a Gaussian process on log time proposes the config with the largest
// expected improvement. With prior data, a cost model fit on it (the context's, else a GP with
// these options) ranks the whole space first, so the search starts from the most promising
// configs, and its prediction becomes the mean function that the GP on this workload's results
// corrects.
class ModelStrategy : public Strategy {
 public:
  explicit ModelStrategy(uint64_t seed, ModelStrategyOptions options = {});
  ~ModelStrategy() override;

  // Learns from the context's prior data, problem values, launch geometry and cost model
  // where it has them.
  void start(const StrategyContext& context) override;
  std::vector<uint64_t> propose(size_t max_batch) override;
  void observe(const std::vector<Measurement>& results) override;

  const ModelStrategyStats& stats() const;

  // One proposal by expected improvement among the candidates `allowed` accepts, for another
  // strategy that narrows the model's choice (to the moves a bottleneck calls for); nullopt
  // when no candidate not yet proposed is allowed.
  using CandidateFilter = std::function<bool(uint64_t config_index)>;
  std::optional<uint64_t> propose_among(const CandidateFilter& allowed);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gputune
