#include "model/cost_model.h"

#include <cmath>
#include <limits>

#include "gputune/error.h"

namespace gputune {
namespace {

constexpr double kJitter = 1e-8;  // keeps nearly duplicated rows factorisable
constexpr double kMinVariance = 1e-12;

double length_unit(Eigen::Index columns) {
  return std::sqrt(static_cast<double>(std::max<Eigen::Index>(columns, 1)));
}

Eigen::RowVectorXd scale_of(const Eigen::MatrixXd& x, const Eigen::RowVectorXd& mean) {
  Eigen::RowVectorXd scale =
      ((x.rowwise() - mean).array().square().colwise().sum() / std::max<Eigen::Index>(1, x.rows()))
          .sqrt();
  // A feature that does not vary says nothing; scale 1 keeps it from dividing by zero.
  for (Eigen::Index j = 0; j < scale.size(); ++j) {
    if (!(scale(j) > 1e-12)) scale(j) = 1;
  }
  return scale;
}

}  // namespace

Eigen::MatrixXd GpHyperparameters::weighted(const Eigen::MatrixXd& x) const {
  if (weights.size() == 0) return x;
  return x.array().rowwise() * weights.array();
}

Eigen::MatrixXd gp_kernel(GpKernel kernel, double length, const Eigen::MatrixXd& a,
                          const Eigen::MatrixXd& b) {
  Eigen::MatrixXd d2 = -2.0 * a * b.transpose();
  d2.colwise() += a.rowwise().squaredNorm();
  d2.rowwise() += b.rowwise().squaredNorm().transpose();
  Eigen::ArrayXXd r2 = d2.array().max(0.0) / (length * length);
  if (kernel == GpKernel::kRbf) return (-0.5 * r2).exp().matrix();
  const double sqrt5 = std::sqrt(5.0);
  Eigen::ArrayXXd r = r2.sqrt();
  return ((1.0 + sqrt5 * r + (5.0 / 3.0) * r2) * (-sqrt5 * r).exp()).matrix();
}

double gp_log_likelihood(GpKernel kernel, const GpHyperparameters& h, const Eigen::MatrixXd& x,
                         const Eigen::VectorXd& y) {
  const double n = static_cast<double>(x.rows());
  const Eigen::MatrixXd xw = h.weighted(x);
  Eigen::MatrixXd k = gp_kernel(kernel, h.length, xw, xw);
  k.diagonal().array() += h.noise + kJitter;
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  Eigen::VectorXd centred = y.array() - y.mean();
  double quadratic = centred.dot(llt.solve(centred));
  double signal = std::max(quadratic / n, kMinVariance);
  double log_det = 2 * llt.matrixLLT().diagonal().array().log().sum();
  return -0.5 * n * std::log(signal) - 0.5 * log_det - 0.5 * n * (1 + std::log(2 * M_PI));
}

GpHyperparameters gp_select(const GpOptions& options, const Eigen::MatrixXd& x,
                            const Eigen::VectorXd& y) {
  GpHyperparameters best;
  double best_ll = -std::numeric_limits<double>::infinity();
  const double unit = length_unit(x.cols());
  for (double length : options.lengths) {
    for (double noise : options.noises) {
      GpHyperparameters h;
      h.length = length * unit;
      h.noise = noise;
      double ll = gp_log_likelihood(options.kernel, h, x, y);
      if (ll > best_ll) {
        best_ll = ll;
        best = h;
      }
    }
  }
  if (!std::isfinite(best_ll)) {
    best = {unit, options.noises.empty() ? 1e-2 : options.noises.back(), {}};
    return best;
  }
  if (!options.relevance || x.rows() < 2 * x.cols()) return best;
  best.weights = Eigen::RowVectorXd::Ones(x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    const double start = best.weights(j);
    for (double factor : options.relevance_factors) {
      GpHyperparameters h = best;
      h.weights(j) = start * factor;
      double ll = gp_log_likelihood(options.kernel, h, x, y);
      if (ll > best_ll) {
        best_ll = ll;
        best = h;
      }
    }
  }
  return best;
}

void GaussianProcess::fit(const Eigen::MatrixXd& features, const Eigen::VectorXd& log_ms) {
  if (features.rows() == 0 || features.rows() != log_ms.size()) {
    throw Error(ErrorCode::kUsage, "a cost model needs one target per row and at least one row");
  }
  x_mean_ = features.colwise().mean();
  x_scale_ = scale_of(features, x_mean_);
  x_ = (features.rowwise() - x_mean_).array().rowwise() / x_scale_.array();
  y_mean_ = log_ms.mean();
  y_scale_ = std::sqrt((log_ms.array() - y_mean_).square().mean());
  if (!(y_scale_ > 1e-12)) y_scale_ = 1;
  Eigen::VectorXd y = (log_ms.array() - y_mean_) / y_scale_;

  hyper_ = gp_select(options_, x_, y);
  log_likelihood_ = gp_log_likelihood(options_.kernel, hyper_, x_, y);
  x_ = hyper_.weighted(x_);
  Eigen::MatrixXd k = gp_kernel(options_.kernel, hyper_.length, x_, x_);
  k.diagonal().array() += hyper_.noise + kJitter;
  llt_.compute(k);
  alpha_ = llt_.solve(y);
  signal_ = std::max(y.dot(alpha_) / static_cast<double>(y.size()), kMinVariance);
}

void GaussianProcess::predict(const Eigen::MatrixXd& features, Eigen::VectorXd* mean,
                              Eigen::VectorXd* stddev) const {
  if (x_.rows() == 0) throw Error(ErrorCode::kUsage, "predict before fit");
  Eigen::MatrixXd x = (features.rowwise() - x_mean_).array().rowwise() / x_scale_.array();
  Eigen::MatrixXd cross = gp_kernel(options_.kernel, hyper_.length, hyper_.weighted(x), x_);
  if (mean) *mean = ((cross * alpha_).array() * y_scale_ + y_mean_).matrix();
  if (stddev) {
    Eigen::MatrixXd v = cross.transpose();
    llt_.matrixL().solveInPlace(v);
    Eigen::ArrayXd variance = (1.0 - v.colwise().squaredNorm().transpose().array()) * signal_;
    *stddev = (variance.max(kMinVariance).sqrt() * y_scale_).matrix();
  }
}

CandidatePosterior::CandidatePosterior(GpKernel kernel, Eigen::MatrixXd candidates)
    : kernel_(kernel), candidates_(std::move(candidates)), weighted_(candidates_) {
  hyper_.length = length_unit(candidates_.cols());
}

void CandidatePosterior::set_hyperparameters(const GpHyperparameters& h) {
  hyper_ = h;
  const Eigen::Index n = n_;
  weighted_ = h.weighted(candidates_);
  if (n == 0) return;
  Eigen::MatrixXd x = h.weighted(x_.topRows(n));
  Eigen::MatrixXd k = gp_kernel(kernel_, h.length, x, x);
  k.diagonal().array() += h.noise + kJitter;
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  l_.topLeftCorner(n, n) = llt.matrixL();
  cross_.leftCols(n) = gp_kernel(kernel_, h.length, weighted_, x);
  Eigen::MatrixXd v = cross_.leftCols(n).transpose();
  llt.matrixL().solveInPlace(v);
  v_.topRows(n) = v;
}

void CandidatePosterior::add(const Eigen::RowVectorXd& x) {
  const Eigen::Index n = n_;
  if (n == x_.rows()) {  // grow geometrically so that adding stays O(n m)
    const Eigen::Index capacity = std::max<Eigen::Index>(16, 2 * n);
    x_.conservativeResize(capacity, candidates_.cols());
    l_.conservativeResize(capacity, capacity);
    cross_.conservativeResize(candidates_.rows(), capacity);
    v_.conservativeResize(capacity, candidates_.rows());
  }
  x_.row(n) = x;
  const Eigen::MatrixXd xw = hyper_.weighted(x);
  Eigen::VectorXd k_new =
      gp_kernel(kernel_, hyper_.length, hyper_.weighted(x_.topRows(n)), xw).col(0);
  Eigen::VectorXd l_row = k_new;
  if (n > 0) l_.topLeftCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(l_row);
  const double diagonal =
      std::sqrt(std::max(1.0 + hyper_.noise + kJitter - l_row.squaredNorm(), kJitter));
  l_.row(n).head(n) = l_row.transpose();
  l_(n, n) = diagonal;
  l_.row(n).tail(l_.cols() - n - 1).setZero();
  cross_.col(n) = gp_kernel(kernel_, hyper_.length, weighted_, xw).col(0);
  Eigen::RowVectorXd v_row = cross_.col(n).transpose();
  if (n > 0) v_row.noalias() -= l_row.transpose() * v_.topRows(n);
  v_.row(n) = v_row / diagonal;
  ++n_;
}

void CandidatePosterior::fit_targets(const Eigen::VectorXd& y, double* y_mean,
                                     Eigen::VectorXd* alpha, double* signal) const {
  if (y.size() != n_ || n_ == 0) {
    throw Error(ErrorCode::kUsage, "a posterior needs one target per observation");
  }
  *y_mean = y.mean();
  Eigen::VectorXd centred = y.array() - *y_mean;
  const auto l = l_.topLeftCorner(n_, n_);
  *alpha = l.triangularView<Eigen::Lower>().solve(centred);
  *signal = std::max(alpha->squaredNorm() / static_cast<double>(n_), kMinVariance);
  *alpha = l.transpose().triangularView<Eigen::Upper>().solve(*alpha);
}

void CandidatePosterior::predict(const Eigen::VectorXd& y, Eigen::VectorXd* mean,
                                 Eigen::VectorXd* stddev) const {
  double y_mean = 0, signal = 1;
  Eigen::VectorXd alpha;
  fit_targets(y, &y_mean, &alpha, &signal);
  if (mean) *mean = (cross_.leftCols(n_) * alpha).array() + y_mean;
  if (stddev) {
    Eigen::ArrayXd variance =
        (1.0 - v_.topRows(n_).colwise().squaredNorm().transpose().array()) * signal;
    *stddev = variance.max(kMinVariance).sqrt().matrix();
  }
}

void CandidatePosterior::predict_points(const Eigen::MatrixXd& points, const Eigen::VectorXd& y,
                                        Eigen::VectorXd* mean, Eigen::VectorXd* stddev) const {
  double y_mean = 0, signal = 1;
  Eigen::VectorXd alpha;
  fit_targets(y, &y_mean, &alpha, &signal);
  Eigen::MatrixXd cross =
      gp_kernel(kernel_, hyper_.length, hyper_.weighted(points), hyper_.weighted(x_.topRows(n_)));
  if (mean) *mean = (cross * alpha).array() + y_mean;
  if (stddev) {
    Eigen::MatrixXd v = cross.transpose();
    l_.topLeftCorner(n_, n_).triangularView<Eigen::Lower>().solveInPlace(v);
    Eigen::ArrayXd variance = (1.0 - v.colwise().squaredNorm().transpose().array()) * signal;
    *stddev = variance.max(kMinVariance).sqrt().matrix();
  }
}

}  // namespace gputune

namespace gputune {

CostModelFactory gaussian_process_factory(GpOptions options) {
  return [options]() -> std::unique_ptr<CostModel> {
    return std::make_unique<GaussianProcess>(options);
  };
}

}  // namespace gputune
