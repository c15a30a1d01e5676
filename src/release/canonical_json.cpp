#include "release/canonical_json.h"

#include <algorithm>

#include "core/config_codec.h"
#include "gputune/error.h"

namespace gputune {
namespace {

template <typename Pairs>
Pairs sorted_by_name(Pairs pairs) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return pairs;
}

}  // namespace

std::string canonical_config_json(const std::string& config_json) {
  auto config = config_from_json(config_json);
  if (!config) throw Error(ErrorCode::kDb, "a stored config is not a JSON object: " + config_json);
  return config_to_json(sorted_by_name(*config));
}

std::string canonical_problem_json(const std::string& problem_json) {
  auto values = problem_from_json(problem_json);
  if (!values) {
    throw Error(ErrorCode::kDb, "stored problem values are not a JSON object: " + problem_json);
  }
  return problem_to_json(sorted_by_name(*values));
}

}  // namespace gputune
