#pragma once
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace gputune {

// A config the model strategy proposed, and what came of it.
struct Observation {
  uint64_t index = 0;
  double prior = 0;          // prior model's prediction, 0 without one
  double believed = 0;       // the model's mean when proposed: the target until a result comes
  bool placeholder = false;  // proposed before any model: no belief of its own
  bool observed = false, ok = false;
  double log_ms = 0;
};

// What the model of this workload is fit on, one entry per observation.
struct ObservationTargets {
  Eigen::VectorXd y;     // log time; failures and pending configs stand in (see the .cpp)
  Eigen::VectorXd base;  // the prior's mean function, a + b * prior; zero without a prior
  double best = 0;       // the best observed log time; +inf before any ok result
  double a = 0, b = 1;   // the prior's shift and scale to this workload, with a prior
};

ObservationTargets observation_targets(const std::vector<Observation>& observations,
                                       double failure_penalty, bool with_prior);

}  // namespace gputune
