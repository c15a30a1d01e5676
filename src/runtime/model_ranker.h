#pragma once
// The model tier: a regression of log time on log problem values, the config's parameters and
// the SM count, trained on a release file's observations of one kernel (model/cost_model's
// Gaussian process), that ranks configs at a problem nothing was measured at.
#include <memory>
#include <vector>

#include "gputune/runtime.h"
#include "runtime/kernel_rules.h"
#include "runtime/release_file.h"

namespace gputune {
class CostModel;
}

namespace gputune::runtime {

class ModelRanker {
 public:
  // Untrained (trained() false) with fewer than kMinObservations usable observations.
  ModelRanker(const KernelRules& rules, const std::vector<ParsedObservation>& observations,
              const std::map<int64_t, ReleaseDevice>& devices);
  ~ModelRanker();
  static constexpr size_t kMinObservations = 4;
  // The rows it learns from, spread evenly over the file's order beyond this many: a Gaussian
  // process costs the cube of its rows, and a first lookup must stay within milliseconds.
  static constexpr size_t kMaxObservations = 256;

  bool trained() const { return model_ != nullptr; }
  size_t observations() const { return rows_; }
  // Predicted milliseconds of each config at the problem on a device with that many SMs.
  std::vector<double> predict_ms(const std::vector<Config>& configs, const ProblemValues& problem,
                                 int sm_count) const;

 private:
  std::vector<double> features(const Config& config, const ProblemValues& problem,
                               int sm_count) const;
  const KernelRules& rules_;
  std::unique_ptr<CostModel> model_;
  size_t rows_ = 0;
};

}  // namespace gputune::runtime
