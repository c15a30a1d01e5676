#include "release/results_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/hash.h"
#include "gputune/error.h"
#include "release/canonical_json.h"
#include "store/store.h"

namespace gputune {
namespace {

std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return stable_hash(std::string(std::istreambuf_iterator<char>(in), {}));
}

bool is_timed_ok(const Measurement& m) {
  const double median = m.median_ms();
  return m.status == Status::kOk && std::isfinite(median) && median > 0;
}

using WorkloadKeyTuple = std::tuple<KernelIdentity, DeviceIdentity, std::string>;

}  // namespace

MeasuredResults read_measured_results(const std::vector<std::string>& databases,
                                      const std::vector<std::string>& kernels) {
  MeasuredResults out;
  std::map<WorkloadKeyTuple, MeasuredWorkload> workloads;
  for (const std::string& path : databases) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw Error(ErrorCode::kIo, path +
                                      ": no such result database (expected a file that "
                                      "`gputune search --db FILE` wrote)");
    }
    out.sources.emplace_back(path, file_hash(path));
    auto store = open_sqlite_store(path, /*read_only=*/true);
    for (const WorkloadSummary& w : store->workloads()) {
      const WorkloadKey& key = w.key;
      if (!kernels.empty() &&
          std::find(kernels.begin(), kernels.end(), key.kernel_name) == kernels.end()) {
        continue;
      }
      KernelIdentity kernel{key.kernel_name, key.source_hash, key.spec_hash};
      DeviceIdentity device{key.device.name, key.device.cc_major, key.device.cc_minor,
                            key.device.sm_count, key.nvrtc_version};
      const std::string problem = canonical_problem_json(key.problem_json);
      out.kernels.emplace(kernel, MeasuredKernel{key.spec_text, key.spec_path, path});
      MeasuredWorkload& workload = workloads[{kernel, device, problem}];
      workload.kernel = kernel;
      workload.device = device;
      workload.problem_json = problem;

      // attempts() is oldest first: the last attempt of each config is the one that counts.
      std::map<uint64_t, Attempt> latest;
      for (Attempt& a : store->attempts(w.id)) latest[a.measurement.config_index] = std::move(a);
      for (const auto& [index, attempt] : latest) {
        const Measurement& m = attempt.measurement;
        if (!is_timed_ok(m)) continue;
        MeasuredConfig c;
        c.config_json = canonical_config_json(m.config);
        c.config_index = index;
        c.median_ms = m.median_ms();
        c.spread = m.spread();
        c.registers = m.registers;
        c.shared_bytes = m.shared_bytes;
        c.provenance =
            path + " workload " + std::to_string(w.id) + " measured " + attempt.created_at;
        auto [it, inserted] = workload.configs.emplace(c.config_json, c);
        if (!inserted && c.median_ms < it->second.median_ms) it->second = std::move(c);
      }
    }
  }
  for (auto& [key, workload] : workloads) out.workloads.push_back(std::move(workload));
  return out;
}

}  // namespace gputune
