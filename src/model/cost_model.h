#pragma once
#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <vector>

namespace gputune {

// Predicts the log run time of configs from their features (one row per config).
class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual void fit(const Eigen::MatrixXd& features, const Eigen::VectorXd& log_ms) = 0;
  // Predicted log time and its standard deviation, one per row.
  virtual void predict(const Eigen::MatrixXd& features, Eigen::VectorXd* mean,
                       Eigen::VectorXd* stddev) const = 0;
};

// Makes a fresh, unfitted cost model: what a strategy that learns fits on the data it is given.
using CostModelFactory = std::function<std::unique_ptr<CostModel>()>;

enum class GpKernel { kRbf, kMatern52 };

struct GpHyperparameters {
  double length = 1;           // length scale, in the units of the features given
  double noise = 1e-2;         // noise variance over signal variance
  Eigen::RowVectorXd weights;  // per feature, multiplied in before the kernel; empty: all 1
  Eigen::MatrixXd weighted(const Eigen::MatrixXd& x) const;
};

struct GpOptions {
  GpKernel kernel = GpKernel::kMatern52;
  // Candidate length scales, as multiples of sqrt(feature count) since distances between
  // standardised rows grow with it.
  std::vector<double> lengths = {0.25, 0.5, 1.0, 2.0};
  std::vector<double> noises = {1e-4, 1e-3, 1e-2, 1e-1};
  // Per-feature weights (automatic relevance) by one pass of coordinate ascent on the
  // likelihood over these factors, after the grid: features that explain little fade out.
  // Off by default: on the synthetic spaces it did not beat the isotropic kernel.
  bool relevance = false;
  std::vector<double> relevance_factors = {0.25, 0.5, 2.0};
};

// k(a, b) with unit signal variance, for every row pair of a and b.
Eigen::MatrixXd gp_kernel(GpKernel kernel, double length, const Eigen::MatrixXd& a,
                          const Eigen::MatrixXd& b);

// Log marginal likelihood of y under a zero-mean-after-centring GP with the signal variance
// at its maximum-likelihood value (profiled out). -inf when the kernel matrix is not
// positive definite.
double gp_log_likelihood(GpKernel kernel, const GpHyperparameters& h, const Eigen::MatrixXd& x,
                         const Eigen::VectorXd& y);

// The grid point of `options` with the largest log marginal likelihood, on features as given.
GpHyperparameters gp_select(const GpOptions& options, const Eigen::MatrixXd& x,
                            const Eigen::VectorXd& y);

// Gaussian process regression on standardised features and targets; hyperparameters chosen by
// log marginal likelihood over a small grid; Cholesky through Eigen::LLT.
class GaussianProcess : public CostModel {
 public:
  explicit GaussianProcess(GpOptions options = {}) : options_(std::move(options)) {}
  void fit(const Eigen::MatrixXd& features, const Eigen::VectorXd& log_ms) override;
  void predict(const Eigen::MatrixXd& features, Eigen::VectorXd* mean,
               Eigen::VectorXd* stddev) const override;
  const GpHyperparameters& hyperparameters() const { return hyper_; }
  double log_marginal_likelihood() const { return log_likelihood_; }

 private:
  GpOptions options_;
  GpHyperparameters hyper_;
  double log_likelihood_ = 0;
  Eigen::RowVectorXd x_mean_, x_scale_;
  double y_mean_ = 0, y_scale_ = 1, signal_ = 1;
  Eigen::MatrixXd x_;  // standardised training features
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
};

// A GP posterior over a fixed candidate set, grown one observation at a time with fixed
// hyperparameters: O(n m) per observation instead of O(n^2 m) for a refit, which is what
// keeps a model-guided step over ~10k candidates within milliseconds. Targets are supplied at
// prediction time, since nothing else depends on them.
class CandidatePosterior {
 public:
  CandidatePosterior(GpKernel kernel, Eigen::MatrixXd candidates);
  // Recomputes from the observations added so far.
  void set_hyperparameters(const GpHyperparameters& h);
  const GpHyperparameters& hyperparameters() const { return hyper_; }
  void add(const Eigen::RowVectorXd& x);
  Eigen::Index observations() const { return n_; }
  Eigen::MatrixXd observed() const { return x_.topRows(n_); }
  // y: one target per observation, in order. Posterior of the latent function.
  void predict(const Eigen::VectorXd& y, Eigen::VectorXd* mean, Eigen::VectorXd* stddev) const;
  void predict_points(const Eigen::MatrixXd& points, const Eigen::VectorXd& y,
                      Eigen::VectorXd* mean, Eigen::VectorXd* stddev) const;

 private:
  void fit_targets(const Eigen::VectorXd& y, double* y_mean, Eigen::VectorXd* alpha,
                   double* signal) const;

  GpKernel kernel_;
  GpHyperparameters hyper_;
  Eigen::MatrixXd candidates_;  // m x d
  Eigen::MatrixXd weighted_;    // the candidates with the hyperparameters' weights applied
  Eigen::MatrixXd x_;           // observations, capacity rows
  Eigen::MatrixXd l_;           // lower Cholesky factor of K + noise I, capacity square
  Eigen::MatrixXd cross_;       // m x capacity: k(candidate, observation)
  Eigen::MatrixXd v_;           // capacity x m: L^-1 cross^T
  Eigen::Index n_ = 0;
};

// Gaussian processes with these options: the cost model the search driver gives strategies.
CostModelFactory gaussian_process_factory(GpOptions options = {});

}  // namespace gputune
