// `gputune source`: a variant's kernel file as it is compiled, after the engine's rewrite.
#include <nlohmann/json.hpp>

#include "core/unified_diff.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "gputune/transforms.h"
#include "profile/config_assignments.h"
#include "space/problem.h"

namespace gputune {

VariantSource variant_source(const Spec& spec, const VariantChoice& choice) {
  const Problem problem(spec);
  const SearchSpace& space = problem.space();
  VariantSource out;
  out.index = problem.baseline_index();
  if (choice.index) {
    if (*choice.index >= space.size()) {
      throw Error(ErrorCode::kUsage, "--index " + std::to_string(*choice.index) +
                                         " is not a config of " + spec.path + "; expected 0 to " +
                                         std::to_string(space.size() - 1));
    }
    out.index = *choice.index;
  } else if (!choice.config.empty()) {
    out.index = config_index_of(problem, choice.config, true);
  } else if (!choice.best_db.empty()) {
    bool found = false;
    for (const WorkloadInfo& w : stored_workloads(choice.best_db, spec)) {
      if (!w.best) continue;
      out.index = config_index_of(problem, w.best->config, true);
      out.device = w.device.name;
      found = true;
      break;
    }
    if (!found) {
      throw Error(ErrorCode::kIo, "nothing measured for " + workload_title(spec) + " in " +
                                      choice.best_db + ": " +
                                      why_nothing_measured(choice.best_db, spec));
    }
  }
  const Variant variant = problem.variant(out.index);
  out.config = variant.config;
  out.file = spec.kernel_path;
  out.original = spec.kernel_source;
  out.source = variant.source.empty() ? spec.kernel_source : variant.source;
  out.prelude = variant.prelude;
  out.compile_options = variant.compile_options;
  out.refusal = variant.refusal;
  out.pruned = problem.why_pruned(out.index);
  for (const Launch& launch : variant.launches) {
    out.launches.push_back({variant.kernel_name_expressions.at(launch.kernel), launch.block,
                            launch.grid, launch.trailing_arguments});
  }
  return out;
}

std::string VariantSource::diff() const {
  return unified_diff(original, source, file, file + " " + config);
}

std::string VariantSource::json() const {
  nlohmann::json launches_json = nlohmann::json::array();
  for (const Launch& l : launches) {
    launches_json.push_back({{"kernel", l.kernel},
                             {"block", l.block},
                             {"grid", l.grid},
                             {"trailing_arguments", l.trailing_arguments}});
  }
  nlohmann::json out = {{"index", index},
                        {"config", nlohmann::json::parse(config)},
                        {"file", file},
                        {"source", source},
                        {"changed", source != original},
                        {"prelude", prelude},
                        {"compile_options", compile_options},
                        {"refusal", refusal},
                        {"pruned", pruned},
                        {"launches", launches_json},
                        {"diff", diff()}};
  if (!device.empty()) out["device"] = device;
  return json_text(out, 2);
}

}  // namespace gputune
