// `gputune transforms`: what each transform of a spec, and each knob of the engine it does not
// list, can do with its kernel (docs/engine.md).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/transforms.h"
#include "search/report.h"
#include "space/engine_knobs.h"
#include "space/problem.h"
#include "space/rule_pick.h"
#include "transforms/generic_transform.h"
#include "transforms/source_transforms.h"

namespace gputune {
namespace {

// At most this many configs are looked at for one value that the baseline's others prune.
constexpr uint64_t kMaxLookups = 200000;

// Each value of dimension `d`: legal with the baseline's other values, legal only with
// others, or pruned (and why).
std::vector<TransformValue> value_verdicts(const Problem& problem, size_t d) {
  const SearchSpace& space = problem.space();
  const std::vector<size_t> baseline = space.decode(problem.baseline_index());
  std::vector<TransformValue> out;
  for (size_t k = 0; k < space.dimensions()[d].values.size(); ++k) {
    TransformValue verdict;
    verdict.value = space.dimensions()[d].values[k];
    std::vector<size_t> digits = baseline;
    digits[d] = k;
    const uint64_t index = space.encode(digits);
    verdict.why = problem.why_pruned(index);
    verdict.legal = verdict.why.empty();
    if (!verdict.legal) {
      // Another config with this value may be valid: walk the space for one.
      uint64_t looked = 0;
      for (uint64_t i = 0; i < space.size() && looked < kMaxLookups; ++i) {
        if (space.decode(i)[d] != k) continue;
        ++looked;
        if (space.valid(i)) {
          verdict.legal = true;
          verdict.why = "not with the baseline's other values (" + verdict.why +
                        "), but e.g. with " + space.describe(i);
          break;
        }
      }
    }
    out.push_back(std::move(verdict));
  }
  return out;
}

std::string direction_text(KnobDirection direction) {
  switch (direction) {
    case KnobDirection::kRaise:
      return " (raise)";
    case KnobDirection::kLower:
      return " (lower)";
    case KnobDirection::kEither:
      break;
  }
  return "";
}

TransformInfo transform_info(const Problem& problem, size_t d, bool listed) {
  const Dimension& dimension = problem.space().dimensions()[d];
  TransformInfo info;
  info.name = dimension.name;
  info.listed = listed;
  info.values = value_verdicts(problem, d);
  if (const SourceTransform* source = find_source_transform(dimension.name)) {
    info.engine = true;
    info.summary = source->summary;
    for (const SourceRemedy& remedy : source->remedies) {
      info.remedies.push_back(remedy.remedy + (remedy.value.empty()
                                                   ? direction_text(remedy.direction)
                                                   : " (" + remedy.value + ")"));
    }
    const engine::Analysis analysis = problem.engine_analysis({dimension.name});
    if (!analysis.parsed) {
      info.reason = "the engine cannot parse the kernel (the warning above says where)";
    } else if (const engine::KnobVerdict* verdict = analysis.find(dimension.name)) {
      info.applies = verdict->applies;
      info.reason = verdict->reason;
      for (const engine::SourcePlace& place : verdict->places) {
        info.places.push_back({place.file, place.line, place.column, place.text});
      }
    }
  } else if (const GenericTransform* generic = find_generic_transform(dimension.name)) {
    info.applies = true;
    info.summary = "applies to any kernel without editing its source";
    if (!generic->remedy.empty()) info.remedies.push_back(generic->remedy);
  }
  return info;
}

nlohmann::json value_json(const Value& value) {
  nlohmann::json out;
  to_json(out, value);
  return out;
}

}  // namespace

TransformsReport transforms_report(const Spec& spec) {
  TransformsReport report;
  const Problem problem(spec);
  report.title = report_title(problem);
  report.note = problem.engine_note();
  for (size_t d = 0; d < problem.space().dimensions().size(); ++d) {
    if (problem.space().dimensions()[d].is_transform) {
      report.transforms.push_back(transform_info(problem, d, true));
    }
  }
  const engine::Analysis analysis = problem.engine_analysis({"stage_shared"});
  report.fusion = analysis.fusion.lines;
  for (const engine::AccessFact& fact : analysis.accesses) {
    AccessInfo info;
    info.place = {fact.place.file, fact.place.line, fact.place.column, fact.place.text};
    info.kernel = fact.kernel;
    info.array = fact.array;
    info.access = fact.read && fact.write ? "read+write" : fact.write ? "write" : "read";
    info.index = fact.index;
    info.index_class = fact.index_class;
    info.coalescing = fact.coalescing;
    info.shared = fact.shared;
    info.decisions = fact.decisions;
    report.accesses.push_back(std::move(info));
  }
  if (const std::optional<RulePick> pick = rule_pick(problem)) {
    report.rule_pick_config = problem.space().json(pick->config_index);
    for (const RuleChoice& choice : pick->choices) {
      report.rule_pick.emplace_back(choice.knob, choice.value.text() + ": " + choice.rule);
    }
  }
  // Each engine knob the spec does not list, added alone with the values worth trying.
  for (const SourceTransform& source : source_transforms()) {
    const bool listed = std::any_of(spec.transforms.begin(), spec.transforms.end(),
                                    [&](const ParameterSpec& t) { return t.name == source.name; });
    if (listed) continue;
    Spec with = spec;
    ParameterSpec knob;
    knob.name = source.name;
    knob.values = source.suggested;
    knob.is_transform = true;
    knob.where = {spec.path};
    with.transforms.push_back(knob);
    check_spec(with);
    const Problem added(with);
    const int d = added.space().dimension_index(source.name);
    report.transforms.push_back(transform_info(added, static_cast<size_t>(d), false));
    if (report.note.empty()) report.note = added.engine_note();
  }
  return report;
}

std::string TransformsReport::text() const {
  std::ostringstream out;
  out << title << "\n";
  if (!note.empty()) out << "warning: " << note << "\n";
  bool others = false;
  for (const TransformInfo& t : transforms) {
    if (!t.listed && !others) {
      out << "\nknobs of the engine the spec could add:\n";
      others = true;
    }
    out << "\n"
        << t.name << (t.engine ? "" : " (generic)") << ": "
        << (t.applies ? "applies" : "does not apply") << (t.reason.empty() ? "" : ": " + t.reason)
        << "\n";
    if (!t.summary.empty()) out << "  what: " << t.summary << "\n";
    for (const TransformPlace& place : t.places) {
      out << "  at " << place.file << ":" << place.line << ":" << place.column;
      if (!place.text.empty()) out << ": " << place.text;
      out << "\n";
    }
    std::vector<std::string> legal;
    for (const TransformValue& v : t.values) {
      if (v.legal) legal.push_back(v.value.text());
    }
    out << "  legal values: " << (legal.empty() ? "(none)" : join(legal)) << "\n";
    for (const TransformValue& v : t.values) {
      if (!v.why.empty()) out << "  " << v.value.text() << ": " << v.why << "\n";
    }
    if (!t.remedies.empty()) out << "  remedies: " << join(t.remedies) << "\n";
  }
  if (!fusion.empty()) out << "\nloop fusion (the engine's fusion analysis):\n";
  for (const std::string& line : fusion) out << "  " << line << "\n";
  if (!rule_pick_config.empty()) {
    out << "\nthe rules' pick (every strategy's first variant): " << config_text(rule_pick_config)
        << "\n";
    for (const auto& [knob, rule] : rule_pick) out << "  " << knob << "=" << rule << "\n";
  }
  if (!accesses.empty()) out << "\nglobal accesses (the engine's access analysis):\n";
  for (const AccessInfo& a : accesses) {
    out << "\n"
        << a.place.file << ":" << a.place.line << ":" << a.place.column << ": " << a.place.text
        << " (" << a.access << " of " << a.array << " in " << a.kernel << ")\n"
        << "  index: " << a.index << " (" << a.index_class << ")\n";
    if (!a.shared.empty()) out << "  shared by: " << join(a.shared) << "\n";
    for (const std::string& decision : a.decisions) out << "  " << decision << "\n";
  }
  return out.str();
}

std::string TransformsReport::json() const {
  nlohmann::json out = {{"title", title}, {"note", note}};
  nlohmann::json list = nlohmann::json::array();
  for (const TransformInfo& t : transforms) {
    nlohmann::json places = nlohmann::json::array();
    for (const TransformPlace& p : t.places) {
      places.push_back(
          {{"file", p.file}, {"line", p.line}, {"column", p.column}, {"text", p.text}});
    }
    nlohmann::json values = nlohmann::json::array();
    for (const TransformValue& v : t.values) {
      values.push_back({{"value", value_json(v.value)}, {"legal", v.legal}, {"why", v.why}});
    }
    list.push_back({{"name", t.name},
                    {"engine", t.engine},
                    {"listed", t.listed},
                    {"applies", t.applies},
                    {"summary", t.summary},
                    {"reason", t.reason},
                    {"places", places},
                    {"values", values},
                    {"remedies", t.remedies}});
  }
  out["transforms"] = list;
  nlohmann::json accesses_json = nlohmann::json::array();
  for (const AccessInfo& a : accesses) {
    accesses_json.push_back({{"file", a.place.file},
                             {"line", a.place.line},
                             {"column", a.place.column},
                             {"text", a.place.text},
                             {"kernel", a.kernel},
                             {"array", a.array},
                             {"access", a.access},
                             {"index", a.index},
                             {"index_class", a.index_class},
                             {"coalescing", a.coalescing},
                             {"shared", a.shared},
                             {"decisions", a.decisions}});
  }
  out["accesses"] = accesses_json;
  if (!fusion.empty()) out["fusion"] = fusion;
  if (!rule_pick_config.empty()) {
    out["rule_pick_config"] = nlohmann::json::parse(rule_pick_config);
    out["rule_pick"] = nlohmann::json::object();
    for (const auto& [knob, rule] : rule_pick) out["rule_pick"][knob] = rule;
  }
  return json_text(out, 2);
}

}  // namespace gputune
