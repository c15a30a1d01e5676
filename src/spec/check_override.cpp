#include "spec/check_override.h"

#include <cmath>
#include <cstdio>

#include "gputune/error.h"
#include "gputune/spec.h"
#include "spec/t1_reader.h"

namespace gputune {
namespace {

constexpr char kMarker[] = " gputune: checked as ";

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void check_tolerance(const std::optional<double>& value, const char* flag) {
  if (value && !(std::isfinite(*value) && *value >= 0)) {
    throw Error(ErrorCode::kUsage,
                std::string(flag) + " " + number_text(*value) + ": expected a tolerance >= 0");
  }
}

}  // namespace

std::string CheckOverride::text() const {
  std::string out;
  if (!check.empty()) out += "--check " + check;
  if (atol) out += std::string(out.empty() ? "" : " ") + "--atol " + number_text(*atol);
  if (rtol) out += std::string(out.empty() ? "" : " ") + "--rtol " + number_text(*rtol);
  return out;
}

void override_check(Spec& spec, const CheckOverride& change) {
  if (change.empty()) return;
  if (!change.check.empty() && change.check != "none" && change.check != "baseline") {
    throw Error(ErrorCode::kUsage, "--check " + change.check +
                                       ": expected none (time the variants unchecked) or "
                                       "baseline (compare each output with the baseline's)");
  }
  check_tolerance(change.atol, "--atol");
  check_tolerance(change.rtol, "--rtol");
  const bool tolerances = change.atol || change.rtol;
  if (change.check == "none") {
    if (tolerances) {
      throw Error(ErrorCode::kUsage,
                  "--atol/--rtol with --check none: nothing is compared; expected one or the "
                  "other");
    }
    spec.check_outputs = false;
    spec.reference_kernel.reset();
    for (ArgumentSpec& arg : spec.arguments) {
      arg.reference.reset();
      arg.reference_fill.reset();
      arg.check_region.reset();
    }
  } else if (change.check == "baseline") {
    spec.check_outputs = true;
    spec.reference_kernel.reset();
    for (ArgumentSpec& arg : spec.arguments) {
      arg.reference.reset();
      arg.reference_fill.reset();
    }
    bool has_output = false;
    for (const ArgumentSpec& arg : spec.arguments) has_output = has_output || arg.output;
    if (!has_output) {
      throw Error(ErrorCode::kUsage, spec.path +
                                         ": --check baseline, but no argument is an output; "
                                         "expected the spec to mark the outputs to compare");
    }
  } else if (!spec.check_outputs) {
    throw Error(ErrorCode::kUsage, spec.path +
                                       " says check: none, so --atol/--rtol compare nothing; "
                                       "expected --check baseline with them");
  }
  if (change.atol) spec.atol = *change.atol;
  if (change.rtol) spec.rtol = *change.rtol;
  spec.check_override = change.text();
  // YAML and T1 (read with comments allowed) both take a comment at the end.
  spec.text += std::string(spec.text.empty() || spec.text.back() == '\n' ? "" : "\n") +
               (is_t1_path(spec.path) ? "//" : "#") + kMarker + spec.check_override + "\n";
}

std::string check_override_lines(const std::string& spec_text) {
  std::string out;
  for (size_t at = spec_text.find(kMarker); at != std::string::npos;
       at = spec_text.find(kMarker, at + 1)) {
    const size_t end = spec_text.find('\n', at);
    out += spec_text.substr(at, end == std::string::npos ? std::string::npos : end - at) + "\n";
  }
  return out;
}

}  // namespace gputune
