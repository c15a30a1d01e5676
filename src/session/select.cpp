#include "gputune/select.h"

#include <cstdlib>
#include <filesystem>

#include "gputune/error.h"
#include "gputune/results.h"
#include "gputune/session.h"
#include "gputune/spec.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"

namespace gputune {
namespace {

// A file that exists, a path (a '/' or a spec's suffix: a missing spec is an error, not a
// kernel) or a shipped spec's name; anything else is a kernel's name, as release databases
// name it.
bool names_a_spec(const std::string& text) {
  const std::string suffix = std::filesystem::path(text).extension().string();
  if (text.find('/') != std::string::npos || suffix == ".yaml" || suffix == ".yml" ||
      suffix == ".json") {
    return true;
  }
  try {
    resolve_spec(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

runtime::DeviceDescription device_of(const SelectRequest& request) {
  const bool described =
      !request.device_name.empty() || !request.cc.empty() || request.sm_count > 0;
  if (!described) {
    try {
      return runtime::DeviceDescription::current(0);
    } catch (const runtime::RuntimeError& e) {
      throw Error(ErrorCode::kNoGpu, std::string(e.what()) +
                                         " To select for a GPU that is not here, describe it: "
                                         "--device-name NAME --cc 9.0 --sm-count 132.");
    }
  }
  if (request.device_name.empty() || request.cc.empty() || request.sm_count <= 0) {
    throw Error(ErrorCode::kUsage,
                "a described device needs --device-name, --cc and --sm-count together (got " +
                    std::string(request.device_name.empty() ? "no" : "a") + " name, " +
                    (request.cc.empty() ? "no" : "a") + " capability and " +
                    (request.sm_count > 0 ? "an" : "no") + " SM count)");
  }
  const auto cc = parse_compute_capability(request.cc);
  if (!cc) {
    throw Error(ErrorCode::kUsage, "--cc '" + request.cc +
                                       "' is not a compute capability; expected MAJOR.MINOR, "
                                       "as 9.0 for an H100");
  }
  return runtime::DeviceDescription::described(request.device_name, cc->first, cc->second,
                                               request.sm_count);
}

}  // namespace

SelectOutcome select_config(const SelectRequest& request) {
  SelectOutcome out;
  runtime::ProblemValues problem;
  std::string source_hash;
  std::optional<Spec> spec;
  if (names_a_spec(request.spec_or_kernel)) {
    spec = open_spec(request.spec_or_kernel, request.overrides);  // a broken spec is an error
  }
  if (spec) {
    out.warnings = spec->warnings;
    out.kernel = spec->kernel_name.text;
    source_hash = spec->source_hash();
    // The problem values only: the space is never counted (problem_info would walk it).
    const Problem at(*spec);
    for (const auto& [name, value] : at.problem_values()) problem[name] = value;
  } else {
    out.kernel = request.spec_or_kernel;
    for (const auto& [name, text] : request.overrides) {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') {
        throw Error(ErrorCode::kUsage,
                    "--set " + name + "=" + text + ": '" + request.spec_or_kernel +
                        "' is no spec, so problem values must be numbers (pass the spec file "
                        "to use expressions)");
      }
      problem[name] = value;
    }
  }
  const runtime::DeviceDescription device = device_of(request);
  try {
    const runtime::Selector selector =
        runtime::Selector::open(request.dbs, runtime::Options{request.strict});
    out.selection = selector.select(out.kernel, problem, device, source_hash);
    for (const std::string& warning : selector.warnings()) out.warnings.push_back(warning);
  } catch (const runtime::RuntimeError& e) {
    throw Error(ErrorCode::kDb, e.what());
  }
  return out;
}

}  // namespace gputune
