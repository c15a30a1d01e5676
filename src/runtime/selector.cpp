#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "gputune/runtime.h"
#include "runtime/launch_fill.h"
#include "runtime/selector_state.h"

namespace gputune::runtime {
namespace {

// A kernel entry of one layer that may answer.
struct Candidate {
  size_t layer = 0;
  const ReleaseFile* file = nullptr;
  const ReleaseKernel* kernel = nullptr;
  std::shared_ptr<KernelRules> rules;
};

struct Answer {
  Config config;
  std::vector<LaunchGeometry> launches;
  double distance = 0, predicted_ms = -1;
  int64_t config_id = -1;  // in the answering layer; -1: none there
  std::string detail;      // for the explanation
};

std::string problem_text(const ProblemValues& problem) {
  std::string out;
  for (const auto& [name, value] : problem) {
    out += (out.empty() ? "" : ", ") + name + "=" + number_text(value);
  }
  return out;
}

std::string config_text(const Config& config) {
  std::string out;
  for (const Parameter& p : config) out += (out.empty() ? "" : ", ") + p.name + "=" + p.text;
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

// A kept config of a stored problem point, valid at the target, carried there.
struct Carried {
  const ParsedChoice* choice = nullptr;
  Config config;
  std::vector<LaunchGeometry> launches;  // at the target
  double distance = 0;
  double fill_there = 1, fill_here = 1;  // launch_fill at its point and at the target
  double estimate = 1;                   // its estimated regret at the target
};

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

class Search {
 public:
  Search(SelectorState& state, const DeviceDescription& device, const ProblemValues& problem)
      : state_(state), device_(device), problem_(problem) {}

  // A choice's stored config, parsed; nullopt, with why, when the file lacks it or it names
  // parameters the kernel does not have.
  std::optional<Config> stored_config(const Candidate& c, const ParsedChoice& choice,
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

  // Whether a choice's config is valid at the target problem on this device, with its launches
  // there; says why not.
  bool valid_here(const Candidate& c, const ParsedChoice& choice, const Config& config,
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

  // The first valid config among the ranked choices of one stored problem point.
  bool first_valid(const Candidate& c, const std::vector<const ParsedChoice*>& ranked, double dist,
                   Answer* answer, std::string* why) {
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

  // Exact or nearest problem among one stored device's choices. `exact_only`: distance 0.
  bool on_device(const Candidate& c, int64_t device_id, bool exact_only, Answer* answer,
                 std::string* why) {
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
      const DeviceDescription there = DeviceDescription::described(
          stored.name, stored.cc_major, stored.cc_minor, stored.sm_count);
      std::vector<Carried> carried;
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

  // Adds the kept configs of one stored point that are valid at the target, with their
  // estimated cost there relative to the point's best. A launch's time goes as its work over
  // its launch fill (blocks over the SM slots its waves take), so a config's work rate at the
  // point, relative to the point's best, is (best time x best's fill) / (its time x its
  // fill); at the target it runs at that rate times its fill there. Comparing configs of
  // different points this way assumes each point's best runs at the same rate, which is what
  // being the best at a point suggests.
  void carry(const Candidate& c, const std::vector<const ParsedChoice*>& ranked, double dist,
             const DeviceDescription& there, std::vector<Carried>* carried, std::string* why) {
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
      if (configs.back() &&
          c.rules->check(*configs.back(), choice->problem, there, choice->registers,
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
      Carried one;
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

  // The nearest point's first valid config, unless another carried config's estimate is lower
  // by more than the noise; ties go to the nearer point, then the better rank.
  void answer_carried(const std::vector<Carried>& carried, size_t points, double window,
                      Answer* answer) {
    const Carried& nearest = carried.front();
    const Carried* best = &nearest;
    for (const Carried& one : carried) {
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

  bool exact(const Candidate& c, Answer* answer, std::string* why, bool exact_only) {
    bool any = false;
    for (const auto& [id, stored] : c.file->devices()) {
      if (!same_device(stored, device_)) continue;
      any = true;
      if (on_device(c, id, exact_only, answer, why)) return true;
    }
    if (!any) *why = "no results for this device";
    return false;
  }

  bool family(const Candidate& c, Answer* answer, std::string* why) {
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
      if (on_device(c, d->id, true, answer, &reason) ||
          on_device(c, d->id, false, answer, &reason)) {
        answer->detail += " on " + device_text(*d);
        return true;
      }
      *why = device_text(*d) + ": " + reason;
    }
    return false;
  }

  bool model(const Candidate& c, size_t layer, Answer* answer, std::string* why) {
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
    const size_t best = static_cast<size_t>(std::min_element(predicted.begin(), predicted.end()) -
                                            predicted.begin());
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

 private:
  SelectorState& state_;
  const DeviceDescription& device_;
  const ProblemValues& problem_;
};

bool override_matches(const Override& o, const std::string& kernel, const DeviceDescription& device,
                      const ProblemValues& problem) {
  if (o.kernel != kernel) return false;
  if (o.device_name != "*" && o.device_name != device.name) return false;
  for (const auto& [name, value] : o.problem) {
    const auto found = problem.find(name);
    if (found == problem.end() || found->second != value) return false;
  }
  return true;
}

// Raw bytes, not text: building the key is most of a memoized lookup's cost.
std::string memo_key(const std::string& kernel, const ProblemValues& problem,
                     const DeviceDescription& d, const std::string& source_hash) {
  std::string key;
  key.reserve(kernel.size() + source_hash.size() + d.name.size() + 64 + problem.size() * 16);
  auto add_text = [&](const std::string& text) {
    const uint32_t size = static_cast<uint32_t>(text.size());
    key.append(reinterpret_cast<const char*>(&size), sizeof(size));
    key += text;
  };
  add_text(kernel);
  add_text(source_hash);
  add_text(d.name);
  const int numbers[] = {d.cc_major,
                         d.cc_minor,
                         d.sm_count,
                         d.max_threads_per_block,
                         d.max_registers_per_block,
                         d.max_shared_bytes_per_block,
                         d.ordinal};
  key.append(reinterpret_cast<const char*>(numbers), sizeof(numbers));
  for (const auto& [name, value] : problem) {
    add_text(name);
    key.append(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  return key;
}

}  // namespace

void SelectorState::warn(const std::string& cause) {
  if (options.strict) throw RuntimeError(cause);
  std::lock_guard<std::mutex> lock(warnings_mutex);
  if (warned.insert(cause).second) warnings.push_back(cause);
}

Selector::Selector(std::shared_ptr<SelectorState> state) : state_(std::move(state)) {}
Selector::~Selector() = default;
Selector::Selector(Selector&&) noexcept = default;
Selector& Selector::operator=(Selector&&) noexcept = default;

Selector Selector::open(const std::vector<std::string>& paths, Options options) {
  auto state = std::make_shared<SelectorState>();
  state->options = options;
  for (const std::string& path : paths) {
    try {
      state->layers.push_back(ReleaseFile::open(path));
    } catch (const std::exception& e) {
      state->warn("release database " + path + ": " + e.what() +
                  "; its kernels get the default tier");
    }
  }
  return Selector(std::move(state));
}

void Selector::add_override(Override entry) {
  {
    std::unique_lock<std::shared_mutex> lock(state_->overrides_mutex);
    state_->overrides.insert(state_->overrides.begin(), std::move(entry));  // newest first
  }
  std::unique_lock<std::shared_mutex> lock(state_->memo_mutex);
  state_->memo.clear();
}

std::vector<std::string> Selector::warnings() const {
  std::lock_guard<std::mutex> lock(state_->warnings_mutex);
  return state_->warnings;
}

// The contract (docs/runtime.md): in lenient mode select() never throws, whatever a file holds;
// in strict mode it throws only RuntimeError. Each tier and layer already turns what it cannot
// read into a miss; this is the last line, for what nothing foresaw.
Selection Selector::select(const std::string& kernel, const ProblemValues& problem_given,
                           const DeviceDescription& device, const std::string& source_hash) const {
  std::string cause;
  try {
    return select_unguarded(kernel, problem_given, device, source_hash);
  } catch (const RuntimeError&) {
    if (state_->options.strict) throw;
    cause = "select('" + kernel + "') failed";
  } catch (const std::exception& e) {
    cause = "select('" + kernel + "'): " + e.what();
    if (state_->options.strict) throw RuntimeError(cause);
  }
  state_->warn(cause + "; the application's own default applies");
  Selection out;
  out.problem = problem_given;
  out.device_ordinal_ = device.ordinal;
  out.device_arch_ = device.arch();
  out.explanation = cause + ": the application's own default applies\nanswered by default";
  out.state_ = state_;
  return out;
}

Selection Selector::select_unguarded(const std::string& kernel, const ProblemValues& problem_given,
                                     const DeviceDescription& device,
                                     const std::string& source_hash) const {
  SelectorState& state = *state_;
  const std::string key = memo_key(kernel, problem_given, device, source_hash);
  {
    std::shared_lock<std::shared_mutex> lock(state.memo_mutex);
    const auto found = state.memo.find(key);
    if (found != state.memo.end()) {
      Selection out = found->second;
      out.state_ = state_;
      return out;
    }
  }

  Selection out;
  out.problem = problem_given;
  out.device_ordinal_ = device.ordinal;
  out.device_arch_ = device.arch();
  std::ostringstream explain;

  std::vector<Candidate> candidates;
  for (size_t l = 0; l < state.layers.size(); ++l) {
    const ReleaseFile& file = *state.layers[l];
    for (const ReleaseKernel& k : file.kernels()) {
      if (k.name != kernel) continue;
      if (!source_hash.empty() && k.source_hash != source_hash) {
        state.warn("release database " + file.path() + ": kernel '" + kernel +
                   "' was tuned on source hash " + k.source_hash + ", the application's is " +
                   source_hash + "; its results are not used (rebuild the release database)");
        continue;
      }
      std::shared_ptr<KernelRules> rules;
      {
        std::lock_guard<std::mutex> lock(state.lazy_mutex);
        const auto slot = state.rules.find({l, k.id});
        if (slot != state.rules.end()) {
          rules = slot->second;
        } else {
          try {
            rules = std::make_shared<KernelRules>(k.spec_json);
          } catch (const std::exception& e) {
            state.rules[{l, k.id}] = nullptr;
            state.warn("release database " + file.path() + ": kernel '" + kernel +
                       "': spec_json: " + e.what());
            continue;
          }
          state.rules[{l, k.id}] = rules;
        }
      }
      if (rules) candidates.push_back({l, &file, &k, rules});
    }
  }

  Answer answer;
  Tier tier = Tier::kDefault;
  const Candidate* from = nullptr;
  std::string layer;
  bool answered = false;
  if (candidates.empty()) {
    explain << "no release database holds kernel '" << kernel << "'"
            << (state.layers.empty() ? " (none opened)" : "")
            << ": the application's own default applies\n";
    const std::string cause = "no release database holds kernel '" + kernel + "'";
    if (state.options.strict) throw RuntimeError(cause);
  } else {
    try {
      out.problem = candidates.front().rules->complete(problem_given);
    } catch (const std::exception& e) {
      state.warn("release database " + candidates.front().file->path() + ": select('" + kernel +
                 "'): " + e.what());
      explain << "the problem does not fit the kernel: " << e.what() << "\n";
      candidates.resize(1);  // the default tier only
      answered = true;       // nothing but the default
      tier = Tier::kDefault;
    }
  }
  Search search(state, device, out.problem);

  // Override: in memory (newest first), then each layer's table.
  if (!candidates.empty() && !answered) {
    std::vector<std::pair<Override, std::string>> overrides;
    {
      std::shared_lock<std::shared_mutex> lock(state.overrides_mutex);
      for (const Override& o : state.overrides) overrides.emplace_back(o, "override");
    }
    // Every layer's overrides, also of a file that holds nothing else (a user's).
    const KernelRules& rules = *candidates.front().rules;
    for (const auto& file : state.layers) {
      for (const ReleaseOverride& stored : file->overrides()) {
        if (stored.kernel != kernel) continue;
        Override o;
        o.kernel = stored.kernel;
        o.device_name = stored.device_name;
        try {
          if (stored.problem_json != "*") o.problem = parse_problem_json(stored.problem_json);
          const Config parsed = rules.parse_config(stored.config_json, &rules.baseline());
          for (const Parameter& p : parsed) o.config[p.name] = p.text;
        } catch (const std::exception& e) {
          state.warn("release database " + file->path() + ": an override of '" + kernel +
                     "': " + e.what());
          continue;
        }
        overrides.emplace_back(std::move(o), file->path());
      }
    }
    std::string why = "none matches";
    for (const auto& [o, where] : overrides) {
      if (!override_matches(o, kernel, device, out.problem)) continue;
      const Candidate& c = candidates.front();
      Config config;
      bool known = true;
      for (const Parameter& base : c.rules->baseline()) {
        const auto v = o.config.find(base.name);
        config.push_back(v == o.config.end() ? base : parameter_from_text(base.name, v->second));
      }
      for (const auto& [name, value] : o.config) {
        bool found = false;
        for (const Parameter& p : config) found = found || p.name == name;
        if (!found) {
          known = false;
          why = "an override names '" + name + "', not a parameter of '" + kernel + "'";
          state.warn(why);
        }
      }
      std::string reason;
      std::vector<LaunchGeometry> launches;
      if (!known) continue;
      if (!c.rules->check(config, out.problem, device, 0, 0, &reason, &launches)) {
        why = "the override (" + config_text(config) + ") is invalid here: " + reason;
        continue;
      }
      answer.config = std::move(config);
      answer.launches = std::move(launches);
      answer.detail = "an explicit override from " + where;
      // Code of the same config, where the first layer embeds it.
      for (const auto& [id, stored] : c.file->configs()) {
        if (stored.kernel_id != c.kernel->id) continue;
        try {
          const Config parsed = c.rules->parse_config(stored.config_json);
          bool equal = parsed.size() == answer.config.size();
          for (size_t i = 0; equal && i < parsed.size(); ++i) {
            equal = parsed[i].text == answer.config[i].text;
          }
          if (equal) answer.config_id = id;
        } catch (const std::exception&) {
          // A stored config that does not parse is no config of the override.
        }
      }
      tier = Tier::kOverride;
      from = &c;
      layer = where;
      answered = true;
      break;
    }
    if (!answered) explain << "override: " << why << "\n";
  }

  for (const Tier step : {Tier::kExact, Tier::kNearestProblem, Tier::kSameFamily, Tier::kModel}) {
    if (answered || candidates.empty()) break;
    std::string misses;
    for (const Candidate& c : candidates) {
      std::string why;
      bool hit = false;
      try {
        switch (step) {
          case Tier::kExact:
            hit = search.exact(c, &answer, &why, true);
            break;
          case Tier::kNearestProblem:
            hit = search.exact(c, &answer, &why, false);
            break;
          case Tier::kSameFamily:
            hit = search.family(c, &answer, &why);
            break;
          default:
            hit = search.model(c, c.layer, &answer, &why);
            break;
        }
      } catch (const std::exception& e) {
        // A table read when first needed (observations) or a row of another shape than the
        // format's: this layer misses here, the next tier or layer answers.
        state.warn("release database " + c.file->path() + ": kernel '" + kernel + "': " + e.what());
        why = std::string("unreadable (") + e.what() + ")";
        hit = false;
        answer = Answer();
      }
      if (hit) {
        tier = step;
        from = &c;
        layer = c.file->path();
        answered = true;
        break;
      }
      misses += (misses.empty() ? "" : "; ") + c.file->path() + ": " + why;
    }
    if (!answered) explain << tier_name(step) << ": " << misses << "\n";
  }

  if (!answered && !candidates.empty()) {
    const Candidate& c = candidates.front();
    answer = Answer();
    answer.config = c.rules->baseline();
    std::string reason;
    if (c.rules->check(answer.config, out.problem, device, 0, 0, &reason, &answer.launches)) {
      answer.detail = "the spec's baseline";
    } else {
      answer.detail =
          "the spec's baseline, which is not valid here either (" + reason + "): do not launch it";
    }
    for (const auto& [id, stored] : c.file->configs()) {
      if (stored.kernel_id == c.kernel->id && stored.is_baseline) answer.config_id = id;
    }
    tier = Tier::kDefault;
    from = &c;
    layer = c.file->path();
  } else if (answered && tier == Tier::kDefault && !candidates.empty()) {
    const Candidate& c = candidates.front();
    answer.config = c.rules->baseline();
    answer.detail = "the spec's baseline";
    from = &c;
    layer = c.file->path();
  }

  out.config = answer.config;
  out.tier = tier;
  out.distance = answer.distance;
  out.predicted_ms = answer.predicted_ms;
  out.layer = layer;
  out.launches = answer.launches;
  if (from != nullptr) {
    out.layer_index_ = static_cast<int>(from->layer);
    try {
      if (answer.config_id >= 0 && !out.launches.empty() &&
          from->file->has_code(answer.config_id)) {
        out.code_config_id_ = answer.config_id;
      }
    } catch (const std::exception& e) {
      state.warn("release database " + from->file->path() + ": its code table: " + e.what());
    }
  }
  explain << "answered by " << tier_name(tier);
  if (!layer.empty()) explain << " from " << layer;
  if (!answer.detail.empty()) explain << ": " << answer.detail;
  if (!out.config.empty()) explain << "; config " << config_text(out.config);
  out.explanation = explain.str();

  {
    std::unique_lock<std::shared_mutex> lock(state.memo_mutex);
    state.memo.emplace(key, out);
  }
  out.state_ = state_;
  return out;
}

const char* tier_name(Tier tier) {
  switch (tier) {
    case Tier::kOverride:
      return "override";
    case Tier::kExact:
      return "exact";
    case Tier::kNearestProblem:
      return "nearest_problem";
    case Tier::kSameFamily:
      return "same_family";
    case Tier::kModel:
      return "model";
    case Tier::kDefault:
      return "default";
  }
  return "default";
}

}  // namespace gputune::runtime
