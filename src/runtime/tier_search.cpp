#include "runtime/tier_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "runtime/launch_fill.h"

namespace gputune::runtime {
namespace {

std::string problem_text(const ProblemValues& problem) {
  std::string out;
  for (const auto& [name, value] : problem) {
    out += (out.empty() ? "" : ", ") + name + "=" + number_text(value);
  }
  return out;
}

bool same_device(const ReleaseDevice& stored, const DeviceDescription& device) {
  return stored.name == device.name && stored.cc_major == device.cc_major &&
         stored.cc_minor == device.cc_minor && stored.sm_count == device.sm_count;
}

double log_ratio(double a, double b) {
  if (a > 0 && b > 0) return std::log(a / b);
  return a == b ? 0 : std::log((std::fabs(a) + 1) / (std::fabs(b) + 1));
}

// sqrt(sum of ln(a/b)^2) over the spec's problem values.
double distance(const KernelRules& rules, const ProblemValues& a, const ProblemValues& b) {
  double sum = 0;
  for (const std::string& name : rules.problem_names()) {
    const auto x = a.find(name), y = b.find(name);
    if (x == a.end() || y == b.end()) return INFINITY;
    const double d = log_ratio(x->second, y->second);
    sum += d * d;
  }
  return std::sqrt(sum);
}

// An estimate must beat the nearest point's answer by more than measurement noise to replace
// it: the kept configs of a point are often within a percent or two of each other.
constexpr double kEstimateNoise = 0.05;
// The stored points weighed: within this factor of the target in every problem value.
constexpr double kWindowFactor = 3.0;

std::string fixed3(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", value);
  return text;
}

// "rank 0 at n=4096, 0.1 ms there": where a stored choice was measured, for explanations.
std::string choice_origin(const ParsedChoice& choice) {
  return "rank " + std::to_string(choice.rank) + " at " + problem_text(choice.problem) + ", " +
         number_text(choice.median_ms) + " ms there";
}

std::string device_text(const ReleaseDevice& d) {
  return d.name + " (sm_" + std::to_string(d.cc_major * 10 + d.cc_minor) + ", " +
         std::to_string(d.sm_count) + " SMs)";
}

}  // namespace

std::string config_text(const Config& config) {
  std::string out;
  for (const Parameter& p : config) out += (out.empty() ? "" : ", ") + p.name + "=" + p.text;
  return out;
}

std::optional<Config> TierSearch::stored_config(const LayerKernel& c, const ParsedChoice& choice,
                                                std::string* why) const {
  const auto config = c.file->configs().find(choice.config_id);
  if (config == c.file->configs().end()) {
    *why = "rank " + std::to_string(choice.rank) + " names config " +
           std::to_string(choice.config_id) + ", which the file lacks";
    return std::nullopt;
  }
  try {
    return c.rules->parse_config(config->second.config_json);
  } catch (const RuntimeError& e) {
    *why = e.what();
    return std::nullopt;
  }
}

bool TierSearch::valid_here(const LayerKernel& c, const ParsedChoice& choice, const Config& config,
                            std::vector<LaunchGeometry>* launches, std::string* why) const {
  std::string reason;
  if (c.rules->check(config, problem_, device_, choice.registers, choice.shared_bytes, &reason,
                     launches)) {
    return true;
  }
  *why = "rank " + std::to_string(choice.rank) + " (" + config_text(config) +
         ") is invalid here: " + reason;
  return false;
}

bool TierSearch::first_valid(const LayerKernel& c, const std::vector<const ParsedChoice*>& ranked,
                             double dist, TierAnswer* answer, std::string* why) {
  for (const ParsedChoice* choice : ranked) {
    std::optional<Config> parsed = stored_config(c, *choice, why);
    std::vector<LaunchGeometry> launches;
    if (!parsed || !valid_here(c, *choice, *parsed, &launches, why)) continue;
    answer->config = std::move(*parsed);
    answer->launches = std::move(launches);
    answer->distance = dist;
    answer->predicted_ms = choice->median_ms;
    answer->config_id = choice->config_id;
    answer->detail = choice_origin(*choice);
    return true;
  }
  return false;
}

bool TierSearch::on_device(const LayerKernel& c, int64_t device_id, bool exact_only,
                           TierAnswer* answer, std::string* why) {
  std::map<std::string, std::vector<const ParsedChoice*>> points;
  for (const ParsedChoice& choice : c.file->choices()) {
    if (choice.kernel_id == c.kernel->id && choice.device_id == device_id) {
      points[choice.problem_json].push_back(&choice);
    }
  }
  std::vector<std::pair<double, const std::vector<const ParsedChoice*>*>> by_distance;
  for (const auto& [text, ranked] : points) {
    const double d = distance(*c.rules, problem_, ranked.front()->problem);
    if (exact_only && d != 0) continue;
    if (!exact_only && d == 0) continue;  // the exact tier's, and it missed
    by_distance.emplace_back(d, &ranked);
  }
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (by_distance.empty()) {
    *why = exact_only ? "no stored choice at this problem" : "no other stored problem";
    return false;
  }
  size_t next = 0;
  if (!exact_only) {
    // The nearest point and those within a factor of kWindowFactor in every problem value.
    const double window =
        std::max(by_distance.front().first,
                 std::log(kWindowFactor) * std::sqrt(1.0 * c.rules->problem_names().size()));
    const ReleaseDevice& stored = c.file->devices().at(device_id);
    const DeviceDescription there = DeviceDescription::described(stored.name, stored.cc_major,
                                                                 stored.cc_minor, stored.sm_count);
    std::vector<CarriedConfig> carried;
    size_t points_in_window = 0;
    for (; next < by_distance.size() && by_distance[next].first <= window * (1 + 1e-12); ++next) {
      ++points_in_window;
      carry(c, *by_distance[next].second, by_distance[next].first, there, &carried, why);
    }
    if (!carried.empty()) {
      answer_carried(carried, points_in_window, window, answer);
      return true;
    }
  }
  for (; next < by_distance.size(); ++next) {
    if (first_valid(c, *by_distance[next].second, by_distance[next].first, answer, why)) {
      return true;
    }
  }
  *why = "no stored config is valid here; last: " + *why;
  return false;
}

void TierSearch::carry(const LayerKernel& c, const std::vector<const ParsedChoice*>& ranked,
                       double dist, const DeviceDescription& there,
                       std::vector<CarriedConfig>* carried, std::string* why) {
  // Every choice parsed and its launch fill at its own point (unknown where it does not fit
  // there), then the point's best: the first of the lowest median, with the fill of the last
  // such best whose fill is known (1 if none).
  std::vector<std::optional<Config>> configs;
  std::vector<std::optional<double>> fills_there;
  const ParsedChoice* best = nullptr;
  double best_fill = 1;
  for (const ParsedChoice* choice : ranked) {
    configs.push_back(stored_config(c, *choice, why));
    std::vector<LaunchGeometry> at_point;
    fills_there.emplace_back();
    if (configs.back() && c.rules->check(*configs.back(), choice->problem, there, choice->registers,
                                         choice->shared_bytes, nullptr, &at_point)) {
      fills_there.back() = launch_fill(at_point, there.sm_count);
    }
    if (best == nullptr || choice->median_ms < best->median_ms) {
      best = choice;
      best_fill = fills_there.back().value_or(best_fill);
    }
  }
  const double best_ms = best != nullptr ? best->median_ms : INFINITY;
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (!configs[i]) continue;
    CarriedConfig one;
    one.choice = ranked[i];
    one.distance = dist;
    one.config = std::move(*configs[i]);
    one.fill_there = fills_there[i].value_or(1);
    if (!valid_here(c, *one.choice, one.config, &one.launches, why)) continue;
    one.fill_here = launch_fill(one.launches, device_.sm_count);
    const double regret_there = best_ms > 0 ? one.choice->median_ms / best_ms : 1;
    one.estimate = regret_there * one.fill_there / best_fill / one.fill_here;
    carried->push_back(std::move(one));
  }
}

void TierSearch::answer_carried(const std::vector<CarriedConfig>& carried, size_t points,
                                double window, TierAnswer* answer) {
  const CarriedConfig& nearest = carried.front();
  const CarriedConfig* best = &nearest;
  for (const CarriedConfig& one : carried) {
    if (one.estimate < best->estimate) best = &one;
  }
  if (best->estimate >= nearest.estimate * (1 - kEstimateNoise)) best = &nearest;
  answer->config = best->config;
  answer->launches = best->launches;
  answer->distance = best->distance;
  answer->predicted_ms = best->choice->median_ms;
  answer->config_id = best->choice->config_id;
  answer->detail = choice_origin(*best->choice) + "; estimated regret here " +
                   fixed3(best->estimate) + " (launch fill " + fixed3(best->fill_there) +
                   " there, " + fixed3(best->fill_here) + " here); weighed " +
                   std::to_string(carried.size()) + " valid kept configs of " +
                   std::to_string(points) + " stored points within distance " + fixed3(window);
  if (best != &nearest) {
    answer->detail += ", over the nearest point's " + choice_origin(*nearest.choice) +
                      " (estimate " + fixed3(nearest.estimate) + ")";
  }
}

bool TierSearch::exact(const LayerKernel& c, TierAnswer* answer, std::string* why,
                       bool exact_only) {
  bool any = false;
  for (const auto& [id, stored] : c.file->devices()) {
    if (!same_device(stored, device_)) continue;
    any = true;
    if (on_device(c, id, exact_only, answer, why)) return true;
  }
  if (!any) *why = "no results for this device";
  return false;
}

bool TierSearch::family(const LayerKernel& c, TierAnswer* answer, std::string* why) {
  std::vector<const ReleaseDevice*> kin;
  for (const auto& [id, stored] : c.file->devices()) {
    if (stored.cc_major == device_.cc_major && !same_device(stored, device_)) {
      kin.push_back(&stored);
    }
  }
  std::stable_sort(kin.begin(), kin.end(), [&](const ReleaseDevice* a, const ReleaseDevice* b) {
    const auto key = [&](const ReleaseDevice* d) {
      return std::make_pair(std::abs(d->sm_count - device_.sm_count),
                            std::abs(d->cc_minor - device_.cc_minor));
    };
    return key(a) < key(b);
  });
  if (kin.empty()) {
    *why = "no results for another sm_" + std::to_string(device_.cc_major) + "x device";
    return false;
  }
  for (const ReleaseDevice* d : kin) {
    std::string reason;
    if (on_device(c, d->id, true, answer, &reason) || on_device(c, d->id, false, answer, &reason)) {
      answer->detail += " on " + device_text(*d);
      return true;
    }
    *why = device_text(*d) + ": " + reason;
  }
  return false;
}

bool TierSearch::model(const LayerKernel& c, size_t layer, TierAnswer* answer, std::string* why) {
  std::shared_ptr<ModelRanker> ranker;
  {
    std::lock_guard<std::mutex> lock(state_.lazy_mutex);
    auto& slot = state_.models[{layer, c.kernel->id}];
    if (!slot) {
      slot = std::make_shared<ModelRanker>(*c.rules, c.file->observations(c.kernel->id),
                                           c.file->devices());
    }
    ranker = slot;
  }
  if (!ranker->trained()) {
    *why = "too few observations to train on (" + std::to_string(ranker->observations()) +
           ", needs " + std::to_string(ModelRanker::kMinObservations) + ")";
    return false;
  }
  std::vector<Config> configs;
  std::vector<int64_t> ids;
  std::vector<std::vector<LaunchGeometry>> geometry;
  for (const auto& [id, stored] : c.file->configs()) {
    if (stored.kernel_id != c.kernel->id) continue;
    int registers = 0, shared = 0;
    for (const ParsedChoice& choice : c.file->choices()) {
      if (choice.config_id == id) {
        registers = std::max(registers, choice.registers);
        shared = std::max(shared, choice.shared_bytes);
      }
    }
    try {
      Config parsed = c.rules->parse_config(stored.config_json);
      std::vector<LaunchGeometry> launches;
      if (!c.rules->check(parsed, problem_, device_, registers, shared, nullptr, &launches)) {
        continue;
      }
      configs.push_back(std::move(parsed));
      ids.push_back(id);
      geometry.push_back(std::move(launches));
    } catch (const RuntimeError&) {
      continue;
    }
  }
  if (configs.empty()) {
    *why = "no kept config is valid here";
    return false;
  }
  const std::vector<double> predicted = ranker->predict_ms(configs, problem_, device_.sm_count);
  const size_t best =
      static_cast<size_t>(std::min_element(predicted.begin(), predicted.end()) - predicted.begin());
  answer->config = configs[best];
  answer->launches = geometry[best];
  answer->predicted_ms = predicted[best];
  answer->config_id = ids[best];
  answer->distance = 0;
  answer->detail = "best predicted of " + std::to_string(configs.size()) +
                   " valid kept configs, model trained on " +
                   std::to_string(ranker->observations()) + " observations";
  return true;
}

}  // namespace gputune::runtime
