#pragma once
// The method's rules as a starting point (docs/engine.md, "The rules' pick"): from the engine's
// access analysis at the baseline's macros, the config the compiler's rules would emit (staging
// where an access is uncoalesced and reused, padding of staged tiles read down a column, thread
// merge along the dimension whose threads share a read, block merge where blocks share a staged
// one, unrolling of the loops that index memory), restricted to the space's values. Every
// strategy proposes it first; `--strategy rules` searches around it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gputune/value.h"

namespace gputune {

class Problem;

struct RuleChoice {
  std::string knob;  // as the spec names it: "stage_shared", "unroll(k_loop)"
  Value value;       // its value in the pick
  std::string rule;  // which access made which rule set it, and why
};

struct RulePick {
  uint64_t config_index = 0;  // of the problem's space: the baseline with the rules' knobs set
  std::vector<RuleChoice> choices;
};

// The rules' pick; nothing where the space has no engine knob beyond its neutral value, the
// engine cannot parse the kernel, no rule fires, or no valid config keeps a rule's value.
std::optional<RulePick> rule_pick(const Problem& problem);

// "stage_shared=32 (rule), pad_shared=1 (rule)": one line per choice for reports.
std::vector<std::string> rule_pick_lines(const RulePick& pick);

}  // namespace gputune
