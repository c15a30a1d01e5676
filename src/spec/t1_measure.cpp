#include "spec/t1_measure.h"

#include <algorithm>
#include <cctype>

#include "gputune/error.h"

namespace gputune {
namespace {

using json = nlohmann::json;

enum class Kind { kTime, kThroughput, kOther };

// Spellings seen in tuners' files, compared without case, spaces, '_', '/' or '-'.
Kind kind_of(const std::string& name) {
  std::string key;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  static const char* const kTime[] = {"time",          "runtime",  "duration", "kerneltime",
                                      "executiontime", "walltime", "latency"};
  static const char* const kThroughput[] = {"gflops", "tflops", "flops",     "gflopss",   "gbs",
                                            "gbps",   "tbs",    "bandwidth", "throughput"};
  if (std::find(std::begin(kTime), std::end(kTime), key) != std::end(kTime)) return Kind::kTime;
  if (std::find(std::begin(kThroughput), std::end(kThroughput), key) != std::end(kThroughput)) {
    return Kind::kThroughput;
  }
  return Kind::kOther;
}

}  // namespace

void read_t1_objective(const json& root, const JsonLocations& where,
                       std::vector<std::string>* warnings) {
  if (!root.contains("General") || !root.at("General").is_object()) return;
  const json& general = root.at("General");
  std::string objective = "time";
  if (general.contains("Objective")) {
    if (!general.at("Objective").is_string()) {
      throw Error(ErrorCode::kSpec, where.at("/General/Objective").str() +
                                        ": General.Objective must be a string, such as \"time\"");
    }
    objective = general.at("Objective").get<std::string>();
  }
  const Kind kind = kind_of(objective);
  const std::string at = where.at("/General/Objective").str() + ": ";
  if (kind == Kind::kOther) {
    throw Error(ErrorCode::kSpec,
                at + "General.Objective '" + objective +
                    "' is not something gputune measures; expected time (minimised) or a "
                    "throughput of the kernel's work over its time (GFLOPs, GB/s: maximised, "
                    "ranked as time); remove Objective to minimise time");
  }
  if (general.contains("Minimize")) {
    const json& minimize = general.at("Minimize");
    const std::string minimize_at = where.at("/General/Minimize").str() + ": ";
    if (!minimize.is_boolean()) {
      throw Error(ErrorCode::kSpec, minimize_at + "General.Minimize must be true or false");
    }
    if (minimize.get<bool>() != (kind == Kind::kTime)) {
      throw Error(ErrorCode::kSpec, minimize_at + "General.Minimize " +
                                        (minimize.get<bool>() ? "true" : "false") + " " +
                                        (kind == Kind::kTime ? "maximises" : "minimises") + " " +
                                        objective + ", which no tuning wants; expected Minimize " +
                                        (kind == Kind::kTime ? "true (or none) for a time"
                                                             : "false (or none) for a throughput"));
    }
  }
  if (kind == Kind::kThroughput) {
    warnings->push_back(
        at + "General.Objective '" + objective +
        "' (maximised) is honoured by minimising time: gputune measures time, and at fixed "
        "problem values a config's " +
        objective +
        " is its work over its time, so the fastest config has the most wherever every config "
        "does the same work (the file cannot say otherwise); the report shows times");
  }
}

void time_unchecked_without_outputs(const JsonLocations& where, Spec* spec) {
  const bool any_output = std::any_of(spec->arguments.begin(), spec->arguments.end(),
                                      [](const ArgumentSpec& arg) { return arg.output; });
  if (any_output || !spec->check_outputs || spec->reference_kernel) return;
  spec->check_outputs = false;
  spec->warnings.push_back(
      where.at("/KernelSpecification/Arguments").str() +
      ": no argument is an output (AccessType WriteOnly or \"Output\": 1), so the variants are "
      "timed unchecked, as BAT's runners time such a file; mark the argument the kernel writes "
      "\"Output\": 1 to have every variant checked against the baseline");
}

}  // namespace gputune
