#include "analysis/remedies.h"

#include "transforms/generic_transform.h"
#include "transforms/source_transforms.h"

namespace gputune {

std::vector<RemedyKnob> knobs_for(const Spec& spec, Remedy remedy) {
  const std::string name = remedy_name(remedy);
  std::vector<RemedyKnob> knobs;
  for (const auto& [annotated, parameters] : spec.remedies) {
    if (annotated != name) continue;
    for (const auto& parameter : parameters) add_remedy_knob(knobs, parse_remedy_knob(parameter));
  }
  for (const auto& transform : spec.transforms) {
    // A transform with a single value is fixed in this space: no knob to turn.
    if (transform.values.size() < 2) continue;
    const GenericTransform* generic = find_generic_transform(transform.name);
    if (generic && generic->remedy == name) {
      add_remedy_knob(knobs, {transform.name, KnobDirection::kEither});
    }
    if (const SourceTransform* source = find_source_transform(transform.name)) {
      for (const SourceRemedy& remedy : source->remedies) {
        if (remedy.remedy == name) {
          add_remedy_knob(knobs, {transform.name, remedy.direction, remedy.value});
        }
      }
    }
  }
  return knobs;
}

std::vector<std::string> knob_names(const std::vector<RemedyKnob>& knobs) {
  std::vector<std::string> names;
  for (const auto& knob : knobs) names.push_back(knob.name);
  return names;
}

std::vector<std::pair<Remedy, std::vector<RemedyKnob>>> knobs_for(
    const Spec& spec, const std::vector<Remedy>& remedies) {
  std::vector<std::pair<Remedy, std::vector<RemedyKnob>>> out;
  for (Remedy remedy : remedies) {
    auto knobs = knobs_for(spec, remedy);
    if (!knobs.empty()) out.emplace_back(remedy, std::move(knobs));
  }
  return out;
}

Diagnosis diagnose(const Spec& spec, const CounterValues& counters, double copy_bandwidth_gbs) {
  BottleneckThresholds limits;
  limits.copy_bandwidth_gbs = copy_bandwidth_gbs;
  Diagnosis out;
  out.analysis = classify_bottleneck(counters, 0, 0, 0, limits);
  out.knobs = knobs_for(spec, out.analysis.remedies);
  return out;
}

}  // namespace gputune
