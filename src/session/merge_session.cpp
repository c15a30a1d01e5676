#include <nlohmann/json.hpp>

#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "session/writable_store.h"
#include "store/merge.h"

namespace gputune {

MergeOutcome merge_databases(const std::string& output, const std::vector<std::string>& inputs) {
  if (inputs.empty()) {
    throw Error(ErrorCode::kUsage,
                "gputune merge OUT IN...: give the databases to merge after the output, such as "
                "gputune merge all.db shard-*.db");
  }
  MergeOutcome out;
  warn_if_network_database(output, &out.warnings);
  for (const std::string& input : inputs) {
    const MergeCounts counts = merge_database(output, input);
    MergedDatabase merged;
    merged.input = counts.input;
    merged.host = counts.host;
    merged.created_at = counts.created_at;
    merged.workloads_added = counts.workloads_added;
    merged.variants_added = counts.variants_added;
    merged.attempts_copied = counts.attempts_copied;
    merged.replaced = counts.replaced;
    merged.kept = counts.kept;
    merged.searches_copied = counts.searches_copied;
    out.inputs.push_back(std::move(merged));
  }
  return out;
}

std::string MergeOutcome::json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const MergedDatabase& m : inputs) {
    out.push_back({{"input", m.input},
                   {"host", m.host},
                   {"created_at", m.created_at},
                   {"workloads_added", m.workloads_added},
                   {"variants_added", m.variants_added},
                   {"attempts_copied", m.attempts_copied},
                   {"replaced", m.replaced},
                   {"kept", m.kept},
                   {"searches_copied", m.searches_copied}});
  }
  return json_text(out, 2);
}

}  // namespace gputune
