#include "profile/variant_counters.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "analysis/bottleneck.h"
#include "analysis/remedies.h"
#include "search/search.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::vector<std::string> profile_launch_command(const std::string& self,
                                                const std::string& spec_path,
                                                const ProblemOverrides& overrides, int device) {
  std::vector<std::string> command = {self, "profile-launch", spec_path, "--device",
                                      std::to_string(device)};
  std::string sets;
  for (const auto& [name, value] : overrides)
    sets += (sets.empty() ? "" : ",") + name + "=" + value;
  if (!sets.empty()) command.insert(command.end(), {"--set", sets});
  return command;
}

std::string gputune_program() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n > 0) {
    const fs::path self(std::string(buffer, static_cast<size_t>(n)));
    if (self.filename() == "gputune") return self.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');) {
      if (folder.empty()) continue;
      const fs::path candidate = fs::path(folder) / "gputune";
      if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  return "";
}

CounterResult profile_variant(CounterSource& source, const Problem& problem,
                              const std::string& spec_path, const ProblemOverrides& overrides,
                              uint64_t index, const NcuLaunch& launch) {
  const std::string self = launch.self.empty() ? gputune_program() : launch.self;
  if (self.empty()) {
    CounterResult result;
    result.unavailable = true;
    result.message =
        "the gputune program, which ncu runs to launch the variant, is not on PATH; put the "
        "installed gputune's folder on PATH";
    return result;
  }
  ProfileTarget target;
  target.command = profile_launch_command(self, spec_path, overrides, launch.device);
  target.command.insert(target.command.end(), {"--config-json", problem.space().json(index)});
  // The entry of the variant's first launch: what -k picks among the launches of the program.
  const Variant variant = problem.variant(index);
  const std::string entry = variant.kernel_name_expressions.at(variant.launches.at(0).kernel);
  target.kernel = entry.substr(0, entry.find('<'));
  target.metrics = bottleneck_metrics();
  target.timeout_s = launch.timeout_s;
  return source.profile(target);
}

CounterResult profile_variant_in_worker(ProcessRunner& runner, Compiler& compiler,
                                        const Problem& problem, uint64_t index, double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  Candidate candidate;
  candidate.variant = problem.variant(index);
  candidate.kernel =
      compiler.compile(compile_request(problem, candidate.variant, runner.device().arch()));
  std::vector<RangeMetric> metrics;
  for (const auto& [collect, report] : range_profiler_metrics())
    metrics.push_back({collect, report});
  const RangeCounters counters = runner.profile(candidate, metrics, timeout_s);
  CounterResult result;
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.source = counters.source;
  result.message = counters.message;
  result.unavailable = counters.unavailable;
  if (!counters.ok) return result;
  result.ok = true;
  const Variant& variant = candidate.variant;
  for (size_t i = 0; i < counters.launches.size(); ++i) {
    KernelCounters launch;
    // One range per launch, in order: each is named by its own kernel.
    const size_t kernel = i < variant.launches.size() ? variant.launches[i].kernel : 0;
    launch.kernel = variant.kernel_name_expressions.at(kernel);
    launch.values = counters.launches[i];
    result.launches.push_back(std::move(launch));
  }
  result.counters = result.launches.front();
  return result;
}

VariantProfile variant_profile(const Spec& spec, const std::map<std::string, double>& counters,
                               double copy_bandwidth_gbs) {
  const Diagnosis diagnosis = diagnose(spec, counters, copy_bandwidth_gbs);
  VariantProfile profile;
  profile.ok = true;
  profile.step = step_name(diagnosis.analysis.step);
  for (const auto& [remedy, knobs] : diagnosis.knobs) {
    for (const RemedyKnob& knob : knobs) add_remedy_knob(profile.knobs, knob);
  }
  return profile;
}

}  // namespace gputune
