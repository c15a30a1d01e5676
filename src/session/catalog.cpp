#include <filesystem>
#include <nlohmann/json.hpp>

#include "compile/compiler.h"
#include "core/text.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "process/gpu_list.h"
#include "run/runner.h"
#include "search/report.h"
#include "session/problem_info.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "strategy/strategy.h"

namespace gputune {

ProblemOverrides parse_assignments(const std::vector<std::string>& given) {
  ProblemOverrides overrides;
  for (const std::string& text : given) {
    for (const std::string& item : split_assignments(text)) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw Error(ErrorCode::kUsage,
                    "--set " + item + ": expected name=value, e.g. --set n=4096");
      }
      overrides.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
  }
  return overrides;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
  return suggestion(word, known);
}

Spec open_spec(const std::string& path_or_name, const ProblemOverrides& overrides) {
  return load_spec(resolve_spec(path_or_name), overrides);
}

Spec spec_from_text(const std::string& text, const std::string& path,
                    const ProblemOverrides& overrides) {
  return parse_spec(text, path, overrides);
}

ProblemInfo problem_info(const Spec& spec) { return problem_info_of(Problem(spec)); }

std::string workload_title(const Spec& spec) { return report_title(Problem(spec)); }

std::vector<ShippedSpec> shipped_spec_list() {
  std::vector<ShippedSpec> out;
  for (const auto& path : shipped_specs()) {
    ShippedSpec row;
    row.name = std::filesystem::path(path).stem().string();
    row.path = path;
    try {
      Problem problem(load_spec(path));
      row.description = problem.spec().description;
      const ConfigCount variants = problem.space().count_valid_bounded();
      row.variants = variants.configs;
      row.variants_estimated = variants.estimated;
      row.product = problem.space().size();
    } catch (const Error& e) {
      row.error = e.what();
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::string ShippedSpec::json() const {
  nlohmann::json row = {{"name", name}, {"path", path}};
  if (error.empty()) {
    row["description"] = description;
    row["variants"] = variants;
    if (variants_estimated) row["variants_estimated"] = true;
    row["product"] = product;
  } else {
    row["error"] = error;
  }
  return json_text(row);
}

std::vector<std::string> strategy_list() { return strategy_names(); }

std::vector<DeviceInfo> gpus() { return list_gpus(); }

std::string nvrtc_toolchain_version() { return nvrtc_version(); }

}  // namespace gputune
