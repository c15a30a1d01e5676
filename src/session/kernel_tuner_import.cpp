// Kernel Tuner's results as prior data: its cache files (tune_kernel(..., cache=FILE)) and
// store_results output become a workload of the spec's kernel, which later searches of that
// kernel learn from (search/prior.h) like any other workload.
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "core/config_codec.h"
#include "core/text.h"
#include "gputune/error.h"
#include "gputune/session.h"
#include "search/search.h"
#include "session/writable_store.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {
namespace {

using json = nlohmann::json;

struct Entry {
  std::string device;
  const json* result;
};

// A cache file: {"device_name", "tune_params", "cache": {"16,2": {...}}}. store_results:
// {"DEVICE": {"PROBLEM_SIZE": [{...}, ...]}}.
std::vector<Entry> entries_of(const json& document, const std::string& file) {
  std::vector<Entry> entries;
  if (document.contains("cache")) {
    const std::string device = document.value("device_name", std::string("unknown GPU"));
    for (const auto& item : document.at("cache").items())
      entries.push_back({device, &item.value()});
    return entries;
  }
  for (const auto& device : document.items()) {
    if (!device.value().is_object()) continue;
    for (const auto& size : device.value().items()) {
      if (!size.value().is_array()) continue;
      for (const json& result : size.value()) entries.push_back({device.key(), &result});
    }
  }
  if (entries.empty()) {
    throw Error(ErrorCode::kUsage,
                file +
                    ": neither a Kernel Tuner cache file (no 'cache') nor store_results "
                    "output ({device: {problem size: [results]}}); expected one of them");
  }
  return entries;
}

bool same(const json& given, const Value& value) {
  if (given.is_number()) return value.is_number() && given.get<double>() == value.as_number();
  if (given.is_boolean())
    return value.is_number() && value.as_number() == (given.get<bool>() ? 1 : 0);
  if (given.is_string()) return !value.is_number() && given.get<std::string>() == value.as_symbol();
  return false;
}

Status failure_status(const std::string& kind) {
  if (kind == "CompilationFailedConfig") return Status::kCompileError;
  if (kind == "InvalidConfig") return Status::kResourceExceeded;
  return Status::kRuntimeError;
}

}  // namespace

PriorImport import_kernel_tuner(const std::string& file, const Spec& spec, const std::string& db) {
  std::ifstream in(file);
  if (!in) throw Error(ErrorCode::kIo, file + ": cannot read the Kernel Tuner file");
  std::ostringstream text;
  text << in.rdbuf();
  json document;
  try {
    document = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw Error(ErrorCode::kUsage, file + ": invalid JSON (" + std::string(e.what()) + ")");
  }
  const Problem problem(spec);
  const SearchSpace& space = problem.space();
  const std::vector<size_t> baseline = space.decode(problem.baseline_index());

  // A parameter Kernel Tuner varied that the spec lacks would merge different kernels.
  if (document.contains("tune_params") && document.at("tune_params").is_object()) {
    for (const auto& [name, values] : document.at("tune_params").items()) {
      if (space.dimension_index(name) < 0 && values.is_array() && values.size() > 1) {
        throw Error(ErrorCode::kUsage,
                    file + ": Kernel Tuner parameter '" + name + "' takes " +
                        std::to_string(values.size()) + " values but " + spec.path +
                        " has no such parameter; expected the spec of the kernel that was tuned "
                        "(parameters are matched by name)");
      }
    }
  }

  PriorImport report;
  std::set<uint64_t> seen;
  std::vector<Measurement> measurements;
  std::string device_name;
  for (const Entry& entry : entries_of(document, file)) {
    const json& result = *entry.result;
    if (!result.is_object()) continue;
    device_name = entry.device;
    std::vector<size_t> digits(space.dimensions().size());
    bool fits = true;
    for (size_t d = 0; d < digits.size() && fits; ++d) {
      const Dimension& dimension = space.dimensions()[d];
      if (!result.contains(dimension.name)) {
        digits[d] = baseline[d];  // a parameter Kernel Tuner did not tune: the spec's baseline
        report.defaulted.insert(dimension.name);
        continue;
      }
      fits = false;
      for (size_t v = 0; v < dimension.values.size(); ++v) {
        if (same(result.at(dimension.name), dimension.values[v])) {
          digits[d] = v;
          fits = true;
          break;
        }
      }
    }
    const uint64_t index = fits ? space.encode(digits) : 0;
    if (!fits || !space.valid(index)) {
      ++report.outside;
      continue;
    }
    if (!seen.insert(index).second) continue;
    Measurement m;
    m.config_index = index;
    m.config = space.json(index);
    m.compile_ms = result.value("compile_time", 0.0);
    m.check_ms = result.value("verification_time", 0.0);
    const json time = result.contains("time") ? result.at("time") : json();
    if (time.is_number()) {
      m.status = Status::kOk;
      if (result.contains("times") && result.at("times").is_array()) {
        for (const json& t : result.at("times")) {
          if (t.is_number()) m.samples_ms.push_back(t.get<double>());
        }
      }
      if (m.samples_ms.empty()) m.samples_ms.push_back(time.get<double>());
      m.message = "imported from Kernel Tuner";
      ++report.ok;
    } else {
      const std::string kind = time.is_string() ? time.get<std::string>() : "no time";
      m.status = failure_status(kind);
      m.message = "imported from Kernel Tuner: " + kind;
      ++report.failures;
    }
    measurements.push_back(std::move(m));
  }
  if (measurements.empty()) {
    throw Error(ErrorCode::kUsage,
                file + ": none of its " + std::to_string(report.outside) +
                    " results is a config of " + spec.path +
                    "'s space; expected the spec of the kernel that was tuned, with the values "
                    "Kernel Tuner tried");
  }

  DeviceInfo device;
  device.name = device_name;
  // Never the toolchain of a search, so an import stays a workload of its own.
  const WorkloadKey key = workload_key(problem, device, "imported from Kernel Tuner");
  auto store = open_writable_store(db, &report.warnings);
  report.workload = store->workload(key);
  store->commit(report.workload, measurements);
  if (seen.count(problem.baseline_index())) {
    store->set_baseline(report.workload, problem.baseline_index());
  }
  return report;
}

std::string PriorImport::json() const {
  return nlohmann::json{{"workload", workload},
                        {"ok", ok},
                        {"failures", failures},
                        {"outside", outside},
                        {"defaulted", defaulted}}
      .dump(2);
}

}  // namespace gputune
