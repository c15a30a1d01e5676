#include "runtime/model_ranker.h"

#include <algorithm>
#include <cmath>

#include "model/cost_model.h"

namespace gputune::runtime {
namespace {

double log_of(double value) { return std::log(std::max(value, 1e-9)); }

}  // namespace

ModelRanker::ModelRanker(const KernelRules& rules,
                         const std::vector<ParsedObservation>& observations,
                         const std::map<int64_t, ReleaseDevice>& devices)
    : rules_(rules) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  const size_t stride =
      std::max<size_t>(1, (observations.size() + kMaxObservations - 1) / kMaxObservations);
  for (size_t i = 0; i < observations.size(); i += stride) {
    const ParsedObservation& o = observations[i];
    const auto device = devices.find(o.device_id);
    if (device == devices.end() || !(o.median_ms > 0)) continue;
    try {
      x.push_back(features(rules.parse_config(o.config_json, &rules.baseline()), o.problem,
                           device->second.sm_count));
      y.push_back(std::log(o.median_ms));
    } catch (const RuntimeError&) {
      continue;  // a config of another space: not this kernel's to learn from
    }
  }
  if (x.size() < kMinObservations) return;
  Eigen::MatrixXd features(x.size(), x.front().size());
  Eigen::VectorXd log_ms(y.size());
  for (size_t r = 0; r < x.size(); ++r) {
    for (size_t c = 0; c < x[r].size(); ++c) features(r, c) = x[r][c];
    log_ms(r) = y[r];
  }
  auto model = std::make_unique<GaussianProcess>();
  model->fit(features, log_ms);
  model_ = std::move(model);
  rows_ = x.size();
}

ModelRanker::~ModelRanker() = default;

std::vector<double> ModelRanker::features(const Config& config, const ProblemValues& problem,
                                          int sm_count) const {
  std::vector<double> out;
  for (const std::string& name : rules_.problem_names()) {
    const auto found = problem.find(name);
    out.push_back(log_of(found == problem.end() ? 1 : found->second));
  }
  const auto& parameters = rules_.parameters();
  for (size_t i = 0; i < parameters.size() && i < config.size(); ++i) {
    const ParameterRule& rule = parameters[i];
    if (rule.numeric) {
      bool positive = true;
      for (const Parameter& v : rule.values) positive = positive && v.number > 0;
      out.push_back(positive ? std::log2(std::max(config[i].number, 1e-9)) : config[i].number);
    } else {
      double index = -1;
      for (size_t v = 0; v < rule.values.size(); ++v) {
        if (rule.values[v].text == config[i].text) index = static_cast<double>(v);
      }
      out.push_back(index);
    }
  }
  out.push_back(log_of(sm_count));
  return out;
}

std::vector<double> ModelRanker::predict_ms(const std::vector<Config>& configs,
                                            const ProblemValues& problem, int sm_count) const {
  std::vector<double> out;
  if (!model_ || configs.empty()) return out;
  const std::vector<double> first = features(configs.front(), problem, sm_count);
  Eigen::MatrixXd x(configs.size(), first.size());
  for (size_t r = 0; r < configs.size(); ++r) {
    const std::vector<double> row = features(configs[r], problem, sm_count);
    for (size_t c = 0; c < row.size(); ++c) x(r, c) = row[c];
  }
  Eigen::VectorXd mean, stddev;
  model_->predict(x, &mean, &stddev);
  for (Eigen::Index r = 0; r < mean.size(); ++r) out.push_back(std::exp(mean(r)));
  return out;
}

}  // namespace gputune::runtime
