#pragma once
#include <map>
#include <set>
#include <string>

#include "gputune/spec.h"

namespace gputune {

// What a reader knows beyond the Spec, so that check messages point where a value was written.
struct SpecCheckContext {
  // Finer locations than the Spec keeps, by key: "problem/NAME" (the name),
  // "values/PARAMETER" (its list) and "values/PARAMETER/I", "arguments" (the list),
  // "arguments/I/name", "arguments/I/output", "arguments/I/scratch", "arguments/I/range",
  // "arguments/I/constant", "arguments/I/symbol",
  // "baseline/I/name", "baseline/I/value" (I-th entry as written), "check/rtol", "check/atol",
  // "search/strategy".
  std::map<std::string, SourceLocation> where;
  std::set<std::string>
      overridden;  // problem values given with --set: their text is not the file's
  std::string kernel_source_as_written;  // for messages; the kernel path when empty
  bool numbered_launches = false;        // messages say "launch 2 block", not "launch block"
};

// check_spec with what the reader knows.
void check_spec(Spec& spec, const SpecCheckContext& context);

}  // namespace gputune
