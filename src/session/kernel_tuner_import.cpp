// Kernel Tuner's results as prior data: its cache files (tune_kernel(..., cache=FILE)) and
// store_results output become a workload of the spec's kernel, which later searches of that
// kernel learn from (search/prior.h) like any other workload. The file is read and checked by
// session/kernel_tuner_results.cpp.
#include <fstream>
#include <map>
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

namespace {

// The same result stored already: the latest attempt of its config, field for field.
bool stored_as(const Measurement& a, const Measurement& b) {
  return a.status == b.status && a.samples_ms == b.samples_ms && a.message == b.message &&
         a.compile_ms == b.compile_ms && a.check_ms == b.check_ms;
}

}  // namespace

PriorImport import_kernel_tuner(const std::string& file, const Spec& spec, const std::string& db,
                                const ImportedGpu& gpu) {
  std::ifstream in(file);
  if (!in) throw Error(ErrorCode::kIo, file + ": cannot read the Kernel Tuner file");
  std::ostringstream text;
  text << in.rdbuf();
  const Problem problem(spec);
  KernelTunerResults results = read_kernel_tuner(text.str(), file, problem);

  PriorImport report;
  report.outside = results.outside;
  report.defaulted = results.defaulted;
  DeviceInfo& device = report.device;
  device.name = results.device_name;
  device.cc_major = gpu.cc_major > 0 ? gpu.cc_major : results.cc_major;
  device.cc_minor = gpu.cc_major > 0 ? gpu.cc_minor : results.cc_minor;
  device.sm_count = gpu.sm_count > 0 ? gpu.sm_count : results.sm_count;
  // Never the toolchain of a search, so an import stays a workload of its own.
  const WorkloadKey key = workload_key(problem, device, "imported from Kernel Tuner");
  auto store = open_writable_store(db, &report.warnings);
  report.workload = store->workload(key);
  // An import of the same file again (a script run twice) stores nothing new: the model would
  // count each result twice, and `show` would list two attempts of each.
  std::map<uint64_t, Measurement> stored;
  for (Measurement& m : store->measured(report.workload)) stored[m.config_index] = std::move(m);
  std::vector<Measurement> fresh;
  for (Measurement& m : results.measurements) {
    const auto found = stored.find(m.config_index);
    if (found != stored.end() && stored_as(found->second, m)) {
      ++report.unchanged;
    } else {
      (m.status == Status::kOk ? report.ok : report.failures) += 1;
      fresh.push_back(std::move(m));
    }
  }
  if (!fresh.empty()) store->commit(report.workload, fresh);
  for (const Measurement& m : fresh) {
    if (m.config_index == problem.baseline_index()) {
      store->set_baseline(report.workload, problem.baseline_index());
    }
  }
  if (!report.releasable()) {
    report.warnings.push_back(
        "prior data only: without the GPU's compute capability and SM count (--cc 9.0 "
        "--sm-count 132, or cc= and sm_count= in Python) `gputune release` cannot ship these "
        "results");
  }
  return report;
}

std::string PriorImport::json() const {
  const nlohmann::json cc =
      device.cc_major > 0
          ? nlohmann::json(std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor))
          : nlohmann::json();
  return json_text(
      nlohmann::json{
          {"workload", workload},
          {"ok", ok},
          {"failures", failures},
          {"unchanged", unchanged},
          {"outside", outside},
          {"defaulted", defaulted},
          {"gpu",
           {{"name", device.name}, {"compute_capability", cc}, {"sm_count", device.sm_count}}},
          {"releasable", releasable()}},
      2);
}

}  // namespace gputune
