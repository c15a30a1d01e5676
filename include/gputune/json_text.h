#pragma once
// JSON written for people and tools (reports, --json, exports, manifests). Text that is not
// UTF-8 (a path, a compiler log quoting a Latin-1 source line, a name read from another
// database) is written with U+FFFD in place of its bad bytes: nlohmann's plain dump() throws on
// it, and the command ended as an internal error after the work was done.
#include <string>

namespace gputune {

template <typename Json>
std::string json_text(const Json& json, int indent = -1) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gputune
