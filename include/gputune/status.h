#pragma once
#include <string>
#include <string_view>

namespace gputune {

// Outcome of one variant. Names follow the T4 'invalidity' values where they overlap. A config
// that fails a constraint has none: strategies propose only valid configs, so none is measured
// (the database's CHECK list still names 'constraint' for files written before it was dropped).
enum class Status { kOk, kCompileError, kResourceExceeded, kRuntimeError, kTimeout, kWrongAnswer };

const char* status_name(Status status);          // "ok", "compile_error", ...
Status status_from_name(std::string_view name);  // throws Error(kDb) on an unknown name

}  // namespace gputune
