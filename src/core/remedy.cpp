#include "core/remedy.h"

#include <algorithm>

#include "core/text.h"

namespace gputune {
namespace {

struct RemedyEntry {
  Remedy remedy;
  const char* name;
  const char* description;
};

const RemedyEntry kRemedies[] = {
    {Remedy::kThreadParallelism, "thread_parallelism", "more thread-level parallelism"},
    {Remedy::kInstructionParallelism, "instruction_parallelism",
     "more instruction-level parallelism (thread merge, unrolling)"},
    {Remedy::kSharedStaging, "shared_staging", "staging through shared memory"},
    {Remedy::kVectorWidth, "vector_width", "wider, coalesced accesses"},
    {Remedy::kPadding, "padding", "padding shared arrays (one extra column)"},
    {Remedy::kRegisterTiling, "register_tiling", "moving shared data into registers"},
    {Remedy::kRegisterCap, "register_cap", "a register cap, for occupancy"},
    {Remedy::kBlockOrder, "block_order", "another block order, for cache locality"},
    {Remedy::kCheaperInstructions, "cheaper_instructions", "cheaper instructions"},
    {Remedy::kFewerBranches, "fewer_branches", "fewer divergent branches"},
};

}  // namespace

const std::vector<Remedy>& all_remedies() {
  static const std::vector<Remedy> remedies = [] {
    std::vector<Remedy> out;
    for (const auto& entry : kRemedies) out.push_back(entry.remedy);
    return out;
  }();
  return remedies;
}

std::string remedy_name(Remedy remedy) {
  for (const auto& entry : kRemedies) {
    if (entry.remedy == remedy) return entry.name;
  }
  return "";
}

std::string remedy_description(Remedy remedy) {
  for (const auto& entry : kRemedies) {
    if (entry.remedy == remedy) return entry.description;
  }
  return "";
}

std::optional<Remedy> parse_remedy(const std::string& name) {
  for (const auto& entry : kRemedies) {
    if (name == entry.name) return entry.remedy;
  }
  return std::nullopt;
}

std::vector<std::string> remedy_names() {
  std::vector<std::string> names;
  for (const auto& entry : kRemedies) names.push_back(entry.name);
  return names;
}

RemedyKnob parse_remedy_knob(const std::string& annotated) {
  if (annotated.size() > 1 && (annotated[0] == '+' || annotated[0] == '-')) {
    return {annotated.substr(1),
            annotated[0] == '+' ? KnobDirection::kRaise : KnobDirection::kLower};
  }
  return {annotated, KnobDirection::kEither};
}

std::string describe_remedy_knob(const RemedyKnob& knob) {
  if (!knob.value.empty()) return "set " + knob.name + " to " + knob.value;
  switch (knob.direction) {
    case KnobDirection::kRaise:
      return "raise " + knob.name;
    case KnobDirection::kLower:
      return "lower " + knob.name;
    case KnobDirection::kEither:
      break;
  }
  return "change " + knob.name;
}

std::string describe_remedy_knobs(const std::vector<RemedyKnob>& knobs) {
  std::vector<std::string> moves;
  for (const RemedyKnob& knob : knobs) moves.push_back(describe_remedy_knob(knob));
  return join(moves);
}

void add_remedy_knob(std::vector<RemedyKnob>& knobs, const RemedyKnob& knob) {
  const bool known = std::any_of(knobs.begin(), knobs.end(),
                                 [&](const RemedyKnob& k) { return k.name == knob.name; });
  if (!known) knobs.push_back(knob);
}

}  // namespace gputune
