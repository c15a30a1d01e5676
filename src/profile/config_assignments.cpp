#include "profile/config_assignments.h"

#include <sstream>

#include "core/config_codec.h"
#include "core/text.h"
#include "gputune/error.h"

namespace gputune {

// "TILE=32,PAD=1" on top of the baseline.
uint64_t config_index_of(const Problem& problem, const std::string& written, bool pruned_ok) {
  std::string assignments = written;
  if (!trim(written).empty() && trim(written)[0] == '{') {
    const std::optional<Config> config = config_from_json(written);
    if (!config) {
      throw Error(ErrorCode::kUsage, "--config '" + written +
                                         "' is not a JSON object; expected e.g. "
                                         "'{\"TILE\":32,\"PAD\":1}' or TILE=32,PAD=1");
    }
    assignments.clear();
    for (const auto& [name, value] : *config) assignments += name + "=" + value.text() + ",";
  }
  const SearchSpace& space = problem.space();
  std::vector<size_t> digits = space.decode(problem.baseline_index());
  std::vector<std::string> names;
  for (const auto& d : space.dimensions()) names.push_back(d.name);
  std::stringstream in(assignments);
  for (std::string item; std::getline(in, item, ',');) {
    item = trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw Error(
          ErrorCode::kUsage,
          "--config '" + item + "' is not NAME=VALUE; expected e.g. --config TILE=32,PAD=1");
    }
    const std::string name = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    const int dim = space.dimension_index(name);
    if (dim < 0) {
      throw Error(ErrorCode::kUsage, "--config names '" + name + "', not a parameter of " +
                                         problem.spec().path + suggestion(name, names) +
                                         "; expected one of: " + join(names));
    }
    const auto& values = space.dimensions()[dim].values;
    std::vector<std::string> texts;
    size_t found = values.size();
    for (size_t i = 0; i < values.size(); ++i) {
      texts.push_back(values[i].text());
      if (values[i].text() == value) found = i;
    }
    if (found == values.size()) {
      throw Error(ErrorCode::kUsage,
                  "--config " + name + "=" + value +
                      " is not among its values; expected one of: " + join(texts));
    }
    digits[dim] = found;
  }
  const uint64_t index = space.encode(digits);
  if (!pruned_ok && !space.valid(index)) {
    throw Error(ErrorCode::kUsage, "--config gives " + space.describe(index) +
                                       ", which a constraint or device limit of the space rules "
                                       "out; pick values the constraints allow");
  }
  return index;
}

}  // namespace gputune
