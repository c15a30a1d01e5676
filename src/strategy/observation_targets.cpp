#include "strategy/observation_targets.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gputune {

ObservationTargets observation_targets(const std::vector<Observation>& observations,
                                       double failure_penalty, bool with_prior) {
  ObservationTargets t;
  Eigen::VectorXd* y = &t.y;
  Eigen::VectorXd* base = &t.base;
  const size_t n = observations.size();
  double worst = -std::numeric_limits<double>::infinity();
  t.best = std::numeric_limits<double>::infinity();
  for (const auto& o : observations) {
    if (o.observed && o.ok) {
      worst = std::max(worst, o.log_ms);
      t.best = std::min(t.best, o.log_ms);
    }
  }
  // Failures count as worse than anything seen: they cluster (resource limits, bad tilings),
  // and a model that ignored them would keep finding those regions unexplored and promising.
  const double penalty = std::isfinite(worst) ? worst + failure_penalty : 0.0;
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
  if (!with_prior) return t;
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
  t.a = a;
  t.b = b;
  return t;
}

}  // namespace gputune
