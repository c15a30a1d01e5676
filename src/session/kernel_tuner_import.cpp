// Kernel Tuner's results as prior data: its cache files (tune_kernel(..., cache=FILE)) and
// store_results output become a workload of the spec's kernel, which later searches of that
// kernel learn from (search/prior.h) like any other workload. The file is read and checked by
// session/kernel_tuner_results.cpp.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "search/search.h"
#include "session/kernel_tuner_results.h"
#include "session/writable_store.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {

PriorImport import_kernel_tuner(const std::string& file, const Spec& spec, const std::string& db) {
  std::ifstream in(file);
  if (!in) throw Error(ErrorCode::kIo, file + ": cannot read the Kernel Tuner file");
  std::ostringstream text;
  text << in.rdbuf();
  const Problem problem(spec);
  KernelTunerResults results = read_kernel_tuner(text.str(), file, problem);

  PriorImport report;
  report.ok = results.ok;
  report.failures = results.failures;
  report.outside = results.outside;
  report.defaulted = results.defaulted;
  DeviceInfo device;
  device.name = results.device_name;
  // Never the toolchain of a search, so an import stays a workload of its own.
  const WorkloadKey key = workload_key(problem, device, "imported from Kernel Tuner");
  auto store = open_writable_store(db, &report.warnings);
  report.workload = store->workload(key);
  store->commit(report.workload, results.measurements);
  for (const Measurement& m : results.measurements) {
    if (m.config_index == problem.baseline_index()) {
      store->set_baseline(report.workload, problem.baseline_index());
    }
  }
  return report;
}

std::string PriorImport::json() const {
  return json_text(nlohmann::json{{"workload", workload},
                                  {"ok", ok},
                                  {"failures", failures},
                                  {"outside", outside},
                                  {"defaulted", defaulted}},
                   2);
}

}  // namespace gputune
