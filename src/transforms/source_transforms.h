#pragma once
// The transformation engine's knobs as a spec sees them (docs/engine.md): names, the values
// each accepts, its neutral value and which remedies of the bottleneck method it applies. The
// engine itself (src/engine, Clang) rewrites the source; nothing here includes it, so the
// spec's checks and the analysis know the knobs without parsing a kernel.
#include <string>
#include <vector>

#include "core/remedy.h"
#include "gputune/value.h"

namespace gputune {

// A transform's name as a spec writes it: "unroll(k_loop)" is base "unroll", target "k_loop".
struct TransformName {
  std::string base, target;
  bool has_target = false;
};
TransformName parse_transform_name(const std::string& name);

// A remedy of the bottleneck method (core/remedy.h's name) and the way the knob applies it.
struct SourceRemedy {
  std::string remedy;
  KnobDirection direction = KnobDirection::kEither;
  std::string value;  // the one value that applies it, for a knob with symbolic values
};

struct SourceTransform {
  std::string name;  // "thread_merge_y"
  // What `name(<target>)` may name: nothing (the knob takes no target), a loop (a C++ label
  // before it, or its line number) or a 2-D __shared__ array.
  enum class Target { kNone, kLoop, kArray } target = Target::kNone;
  Value neutral;  // the value that leaves the kernel as written
  // Why a value is not accepted ("thread_merge_y value 0 is not ...; expected ..."), "" when it
  // is.
  std::string (*reject)(const std::string& name, const Value& value) = nullptr;
  std::vector<SourceRemedy> remedies;
  std::string summary;  // what it does, one line
  // Values worth trying, the neutral one first: what `gputune transforms` tries where a spec
  // does not list the knob.
  std::vector<Value> suggested;
};

// Every knob of the engine, in the order messages list them.
const std::vector<SourceTransform>& source_transforms();
// The entry of `name` ("unroll" or "unroll(k_loop)"); null when it is none of them.
const SourceTransform* find_source_transform(const std::string& name);
std::vector<std::string> source_transform_names();

// Why `name` is not a transform a spec may list (generic or the engine's, with a target where
// the knob takes one), "" when it is.
std::string reject_transform_name(const std::string& name);
// Generic transforms, then the engine's knobs.
std::vector<std::string> transform_names();

// Whether `value` is the engine knob's neutral value (numbers compare as numbers).
bool is_neutral(const SourceTransform& transform, const Value& value);

}  // namespace gputune
