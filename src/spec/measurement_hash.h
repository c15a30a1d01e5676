#pragma once
#include <string>

namespace gputune {

// The hash of what a spec text says about its variants and their measurements: the text
// without the keys that neither number the configs nor change what a run of one measures
// (`remedies:`, `description:`, `search:`). A recording made with one text replays against
// another with the same measurement hash, such as the spec after it gained remedy directions.
// A text that is not a YAML map hashes as it is.
std::string measurement_hash_of(const std::string& spec_text);

}  // namespace gputune
