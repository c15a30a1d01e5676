#include "analysis/remedies.h"

#include <algorithm>

#include "transforms/generic_transform.h"

namespace gputune {

std::vector<std::string> knobs_for(const Spec& spec, Remedy remedy) {
  const std::string name = remedy_name(remedy);
  std::vector<std::string> knobs;
  auto add = [&knobs](const std::string& knob) {
    if (std::find(knobs.begin(), knobs.end(), knob) == knobs.end()) knobs.push_back(knob);
  };
  for (const auto& [annotated, parameters] : spec.remedies) {
    if (annotated != name) continue;
    for (const auto& parameter : parameters) add(parameter);
  }
  for (const auto& transform : spec.transforms) {
    const GenericTransform* generic = find_generic_transform(transform.name);
    // A transform with a single value is fixed in this space: no knob to turn.
    if (generic && generic->remedy == name && transform.values.size() > 1) add(transform.name);
  }
  return knobs;
}

std::vector<std::pair<Remedy, std::vector<std::string>>> knobs_for(
    const Spec& spec, const std::vector<Remedy>& remedies) {
  std::vector<std::pair<Remedy, std::vector<std::string>>> out;
  for (Remedy remedy : remedies) {
    auto knobs = knobs_for(spec, remedy);
    if (!knobs.empty()) out.emplace_back(remedy, std::move(knobs));
  }
  return out;
}

}  // namespace gputune
