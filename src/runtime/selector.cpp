#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "gputune/runtime.h"
#include "runtime/launch_fill.h"
#include "runtime/selector_state.h"
#include "runtime/tier_search.h"

namespace gputune::runtime {
namespace {

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

  std::vector<LayerKernel> candidates;
  std::string other_sources;  // "FILE (source hash H)" of each layer tuned on another source
  for (size_t l = 0; l < state.layers.size(); ++l) {
    const ReleaseFile& file = *state.layers[l];
    for (const ReleaseKernel& k : file.kernels()) {
      if (k.name != kernel) continue;
      if (!source_hash.empty() && k.source_hash != source_hash) {
        state.warn("release database " + file.path() + ": kernel '" + kernel +
                   "' was tuned on source hash " + k.source_hash + ", the application's is " +
                   source_hash + "; its results are not used (rebuild the release database)");
        other_sources += (other_sources.empty() ? "" : ", ") + file.path() + " (source hash " +
                         k.source_hash + ")";
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

  TierAnswer answer;
  Tier tier = Tier::kDefault;
  const LayerKernel* from = nullptr;
  std::string layer;
  bool answered = false;
  if (candidates.empty()) {
    // A kernel tuned on another source is the likelier cause than none at all: say so.
    const std::string cause =
        other_sources.empty()
            ? "no release database holds kernel '" + kernel + "'" +
                  (state.layers.empty() ? " (none opened)" : "")
            : "no release database holds kernel '" + kernel + "' tuned on the application's " +
                  "source (source hash " + source_hash + "): " + other_sources +
                  " tuned another; rebuild the release database from results of this source";
    explain << cause << ": the application's own default applies\n";
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
  TierSearch search(state, device, out.problem);

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
      const LayerKernel& c = candidates.front();
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
    for (const LayerKernel& c : candidates) {
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
        answer = TierAnswer();
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
    const LayerKernel& c = candidates.front();
    answer = TierAnswer();
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
    const LayerKernel& c = candidates.front();
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
