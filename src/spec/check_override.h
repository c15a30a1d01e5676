#pragma once
// The comment that carries a changed check in a spec's text (gputune/spec.h override_check).
#include <string>

namespace gputune {

// The comment lines override_check appended to `spec_text` ("# gputune: checked as --check
// none"), or "" when it appended none: the measurement hash keeps them, though YAML drops
// comments.
std::string check_override_lines(const std::string& spec_text);

}  // namespace gputune
