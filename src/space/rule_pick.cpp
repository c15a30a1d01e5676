#include "space/rule_pick.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "space/engine_knobs.h"
#include "space/problem.h"

namespace gputune {
namespace {

// The factors the rules ask for where the method leaves a free choice to measurement: a
// strip of a warp's width (one 128-byte segment of floats per row of the tile), four outputs
// per merged thread, two blocks per merged block, loops unrolled four times, one padding word.
constexpr double kStrip = 32, kThreadMerge = 4, kBlockMerge = 2, kUnroll = 4, kPad = 1;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  for (const std::string& x : list) {
    if (x == item) return true;
  }
  return false;
}

// What the access analysis says the rules call for, knob base name -> (factor, why).
struct Wanted {
  std::map<std::string, std::pair<double, std::string>> knobs;
  void want(const std::string& knob, double factor, const std::string& why) {
    knobs.emplace(knob, std::make_pair(factor, why));  // the first access to call for it says why
  }
};

std::string access_text(const engine::AccessFact& fact) {
  return fact.place.str() + " " + fact.place.text;
}

Wanted wanted_by(const engine::Analysis& analysis) {
  Wanted wanted;
  // Staging: an uncoalesced access whose data is reused (the analysis's staging decision).
  std::set<std::string> staged;  // place of each staged access
  for (const engine::AccessFact& fact : analysis.accesses) {
    for (const std::string& decision : fact.decisions) {
      if (!starts_with(decision, "staging: stage_shared stages it")) continue;
      staged.insert(fact.place.str());
      const bool strip = decision.find("strip by strip") != std::string::npos;
      // The rule's own words: "stage_shared stages it strip by strip through a shared tile ..."
      const std::string why = access_text(fact) + ": " + decision.substr(decision.find(": ") + 2);
      if (strip) {
        wanted.knobs.erase("stage_shared");  // a loop's strip decides the value for all
        wanted.want("stage_shared", kStrip, why + "; a warp's width of words per strip");
      } else {
        wanted.want("stage_shared", 1, why);
      }
    }
  }
  // Padding: a staged tile whose rows follow threadIdx.x is read down a column.
  if (wanted.knobs.count("stage_shared")) {
    for (const engine::StagedTile& tile : analysis.staged_tiles) {
      if (tile.rows == engine::StagedTile::Extent::kBlockX &&
          tile.columns != engine::StagedTile::Extent::kOne) {
        wanted.want("pad_shared", kPad,
                    tile.name +
                        " is read down a column by neighbouring threads in x: padded "
                        "against bank conflicts");
      }
    }
  }
  // Merges: a read the threads along d share stays in a register (thread merge); a staged one
  // the blocks along d share is loaded once for the blocks merged (block merge).
  for (const engine::AccessFact& fact : analysis.accesses) {
    if (!fact.read || fact.write || fact.index_class == "unknown") continue;
    for (const char* d : {"x", "y"}) {
      const std::string dim = d;
      if (has(fact.shared, "threads along " + dim)) {
        wanted.want("thread_merge_" + dim, kThreadMerge,
                    access_text(fact) + " is read alike by the threads along " + dim +
                        ": merged threads keep it in a register");
      }
      if (staged.count(fact.place.str()) && has(fact.shared, "blocks along " + dim)) {
        wanted.want("block_merge_" + dim, kBlockMerge,
                    access_text(fact) + " is staged and shared by the blocks along " + dim +
                        ": a merged block loads the tile once");
      }
    }
  }
  // Fusion: the leading launches that are parallel loops become one kernel, their intermediates
  // in shared memory; a thread merge along y gives the fused tile more rows than threads, so a
  // smaller share of it is halo recomputed.
  const engine::FusionFacts& fusion = analysis.fusion;
  if (fusion.fusable >= 2) {
    wanted.want("fuse", fusion.fusable,
                "launches 1 to " + std::to_string(fusion.fusable) +
                    " are parallel loops at constant dependence distances: fused, their "
                    "intermediates in shared memory and the halo recomputed");
    wanted.want("thread_merge_y", kThreadMerge,
                "the fused tile gets more rows than threads: a smaller share of it is halo");
  }
  if (wanted.knobs.count("thread_merge_x") || wanted.knobs.count("thread_merge_y")) {
    wanted.want("merge_layout", 0,
                "merged outputs a block apart keep neighbouring threads on neighbouring words");
  }
  // Unrolling: an access indexed by a loop's iteration.
  for (const engine::AccessFact& fact : analysis.accesses) {
    if (fact.index_class == "loop iterator") {
      wanted.want("unroll", kUnroll,
                  access_text(fact) + " is indexed by a loop's iteration: the loop unrolled");
      break;
    }
  }
  return wanted;
}

// The non-neutral value of a dimension nearest to `factor` (the smaller of two as near);
// nullopt where the dimension has none.
std::optional<size_t> nearest_value(const Dimension& dimension, const SourceTransform& transform,
                                    const std::string& base, double factor) {
  std::optional<size_t> best;
  double best_distance = std::numeric_limits<double>::infinity();
  for (size_t v = 0; v < dimension.values.size(); ++v) {
    const Value& value = dimension.values[v];
    if (base == "merge_layout") {
      if (!value.is_number() && value.as_symbol() == "strided") return v;
      continue;
    }
    if (is_neutral(transform, value) || !value.is_number()) continue;
    const double distance = std::fabs(value.as_number() - factor);
    if (distance < best_distance ||
        (distance == best_distance && value.as_number() < dimension.values[*best].as_number())) {
      best = v;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

std::optional<RulePick> rule_pick(const Problem& problem) {
  const EngineKnobs& knobs = problem.engine_knobs();
  const engine::Analysis& analysis = knobs.analysis();
  if (knobs.empty() || !analysis.parsed) return std::nullopt;
  const Wanted wanted = wanted_by(analysis);
  const SearchSpace& space = problem.space();
  std::vector<size_t> digits = space.decode(problem.baseline_index());
  std::vector<std::pair<const EngineKnobs::Knob*, std::string>> set;  // knob, why
  for (const EngineKnobs::Knob& knob : knobs.knobs()) {
    const std::string& base = knob.transform->name;
    const auto found = wanted.knobs.find(base);
    if (found == wanted.knobs.end()) continue;
    // The engine refuses the knob on this kernel (the space keeps it neutral).
    const engine::KnobVerdict* verdict = analysis.find(knob.name);
    if (base != "merge_layout" && (verdict == nullptr || !verdict->applies)) continue;
    const Dimension& dimension = space.dimensions()[knob.dimension];
    const std::optional<size_t> value =
        nearest_value(dimension, *knob.transform, base, found->second.first);
    if (!value) continue;
    digits[knob.dimension] = *value;
    set.emplace_back(&knob, found->second.second);
  }
  // The layout matters only to merged threads.
  bool merged = false;
  for (const auto& [knob, why] : set) {
    merged |= knob->transform->name == kThreadMergeX || knob->transform->name == kThreadMergeY;
  }
  for (auto it = set.begin(); !merged && it != set.end();) {
    if (it->first->transform->name != "merge_layout") {
      ++it;
      continue;
    }
    digits[it->first->dimension] = space.decode(problem.baseline_index())[it->first->dimension];
    it = set.erase(it);
  }
  if (set.empty()) return std::nullopt;
  uint64_t index = space.encode(digits);
  if (!space.valid(index)) index = space.nearest_valid(index);
  if (index >= space.size() || index == problem.baseline_index()) return std::nullopt;
  RulePick pick;
  pick.config_index = index;
  const std::vector<size_t> chosen = space.decode(index);
  for (const auto& [knob, why] : set) {
    const Dimension& dimension = space.dimensions()[knob->dimension];
    const Value& value = dimension.values[chosen[knob->dimension]];
    std::string rule = why;
    if (chosen[knob->dimension] != digits[knob->dimension]) {
      rule += " (" + dimension.values[digits[knob->dimension]].text() +
              " leaves the space's valid configs: the nearest valid one has " + value.text() + ")";
    }
    pick.choices.push_back({knob->name, value, rule});
  }
  return pick;
}

std::vector<std::string> rule_pick_lines(const RulePick& pick) {
  std::vector<std::string> lines;
  for (const RuleChoice& choice : pick.choices) {
    lines.push_back(choice.knob + "=" + choice.value.text() + ": " + choice.rule);
  }
  return lines;
}

}  // namespace gputune
