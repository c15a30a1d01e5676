#include <set>

#include "core/config_codec.h"
#include "gputune/session.h"
#include "search/matching_workloads.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {
namespace {

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// {"n":1024,"m":2} -> "n=1024 m=2", as workload titles write problem values.
std::string problem_text(const std::string& problem_json) {
  const std::optional<ProblemValues> values = problem_from_json(problem_json);
  if (!values) return problem_json;
  std::string out;
  for (const auto& [name, value] : *values) {
    out += (out.empty() ? "" : " ") + name + "=" + Value(value).text();
  }
  return out.empty() ? "no problem values" : out;
}

}  // namespace

std::string why_nothing_measured(const std::string& db, const Spec& spec) {
  auto store = open_sqlite_store(db, true);
  const std::string problem_json = Problem(spec).problem_json();
  const std::string kernel = spec.kernel_name.text;
  std::set<std::string> kernels, other_sources, other_specs, other_problems, failed;
  for (const WorkloadSummary& w : store->workloads()) {
    kernels.insert("'" + w.key.kernel_name + "'");
    if (w.key.kernel_name != kernel) continue;
    const std::string where = w.key.spec_path.empty() ? "" : " (" + w.key.spec_path + ")";
    if (w.key.source_hash != spec.source_hash()) {
      other_sources.insert(short_hash(w.key.source_hash) + where);
    } else if (!measures_as(spec, w.key)) {
      other_specs.insert(short_hash(w.key.spec_hash) + where);
    } else if (w.key.problem_json != problem_json) {
      other_problems.insert(problem_text(w.key.problem_json));
    } else if (!w.best) {
      failed.insert("workload " + std::to_string(w.id) + " (" + std::to_string(w.attempts) +
                    " attempts, none ok, on " + w.key.device.name + ")");
    }
  }
  if (kernels.empty()) return db + " holds no results at all";
  if (!failed.empty()) {
    return "every variant measured failed: " + joined(failed) + "; `gputune show --db " + db +
           " --workload ID` lists why";
  }
  std::string why;
  const auto add = [&why](const std::string& sentence) {
    why += (why.empty() ? "" : "; ") + sentence;
  };
  if (!other_problems.empty()) {
    add("this spec was measured at " + joined(other_problems) + ", not at " +
        problem_text(problem_json) + " (give those values with --set)");
  }
  if (!other_specs.empty()) {
    add("kernel '" + kernel + "' was measured with another version of the spec (spec hash " +
        joined(other_specs) + "; this one's is " + short_hash(spec.spec_hash()) +
        "), whose space may differ: pass the spec it was measured with");
  }
  if (!other_sources.empty()) {
    add("kernel '" + kernel + "' was measured with another kernel source (source hash " +
        joined(other_sources) + "; this one's is " + short_hash(spec.source_hash()) +
        "): the kernel changed since, so search again or pass the spec of that source");
  }
  if (why.empty()) {
    add(db + " holds no workload of kernel '" + kernel + "' (it holds kernel " + joined(kernels) +
        ")");
  }
  return why;
}

}  // namespace gputune
