#pragma once
#include <optional>
#include <string>
#include <vector>

namespace gputune {

// The transformation vocabulary of the bottleneck method: what a knob does to a kernel. A spec
// says which of its parameters are which (`remedies:`); generic transforms carry their own.
enum class Remedy {
  kThreadParallelism,       // more threads or blocks in flight (block size, tile count)
  kInstructionParallelism,  // more independent work per thread (thread merge, unrolling)
  kSharedStaging,           // staging global data through shared memory (tiles, stages, async)
  kVectorWidth,             // wider, coalesced accesses (float2/float4)
  kPadding,                 // an extra column in shared arrays against bank conflicts
  kRegisterTiling,          // shared data moved into registers
  kRegisterCap,             // a register limit, for occupancy
  kBlockOrder,              // the order blocks visit the data (L2 locality)
  kCheaperInstructions,     // fast math, cheaper index arithmetic
  kFewerBranches,           // less divergence
};

const std::vector<Remedy>& all_remedies();
std::string remedy_name(Remedy remedy);         // "thread_parallelism"
std::string remedy_description(Remedy remedy);  // "more thread-level parallelism"
std::optional<Remedy> parse_remedy(const std::string& name);
std::vector<std::string> remedy_names();

// Which way a knob applies a remedy. A spec's `remedies:` writes "+UNROLL" for larger values,
// "-BM" for smaller ones (larger tiles mean fewer blocks) and "WX" where either may help.
enum class KnobDirection { kEither, kRaise, kLower };
// A knob with symbolic values may name the one value that applies the remedy (the engine's
// merge_layout: strided, against bank conflicts); empty for any value the direction allows.
struct RemedyKnob {
  std::string name;
  KnobDirection direction = KnobDirection::kEither;
  std::string value;
  bool operator==(const RemedyKnob& other) const {
    return name == other.name && direction == other.direction && value == other.value;
  }
};
RemedyKnob parse_remedy_knob(const std::string& annotated);  // "+UNROLL" -> {UNROLL, kRaise}
std::string describe_remedy_knob(const RemedyKnob& knob);    // "raise UNROLL", "change WX",
                                                             // "set merge_layout to strided"
std::string describe_remedy_knobs(const std::vector<RemedyKnob>& knobs);  // "raise TM, lower BM"
// Appends `knob` unless `knobs` holds one of its name: the first way a knob is named wins.
void add_remedy_knob(std::vector<RemedyKnob>& knobs, const RemedyKnob& knob);

}  // namespace gputune
