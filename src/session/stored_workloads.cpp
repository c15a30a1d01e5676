#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "replay/replay.h"
#include "search/matching_workloads.h"
#include "search/report.h"
#include "session/problem_info.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "store/store.h"

namespace gputune {

namespace {

// Read-only, and only a file that exists: reading must not leave an empty database behind.
std::unique_ptr<Store> open_existing_store(const std::string& db) {
  if (!std::filesystem::exists(db)) {
    throw Error(ErrorCode::kIo, db + ": no such database (run gputune search first, or --db)");
  }
  return open_sqlite_store(db, true);
}

}  // namespace

std::vector<WorkloadInfo> stored_workloads(const std::string& db, const std::optional<Spec>& spec) {
  auto store = open_existing_store(db);
  std::vector<WorkloadInfo> out;
  const std::vector<WorkloadSummary> workloads =
      spec ? workloads_measured_as(*store, *spec, Problem(*spec).problem_json())
           : store->workloads();
  for (const WorkloadSummary& w : workloads) out.push_back(workload_info(w));
  return out;
}

StoredWorkload load_stored(const std::string& db, int64_t workload,
                           const std::optional<Spec>& spec) {
  auto store = open_existing_store(db);
  std::optional<WorkloadSummary> summary;
  for (const WorkloadSummary& w : store->workloads()) {
    if (w.id == workload) summary = w;
  }
  if (!summary) throw Error(ErrorCode::kUsage, db + ": no workload " + std::to_string(workload));
  std::unique_ptr<Problem> problem;
  if (spec) problem = std::make_unique<Problem>(*spec);
  StoredWorkload out;
  out.summary = workload_info(*summary);
  out.copy_bandwidth_gbs = store->copy_bandwidth(summary->key.device).value_or(0);
  auto report = std::make_shared<Report>(make_report(
      summary->key.spec_path, summary->key.device, out.copy_bandwidth_gbs, summary->baseline,
      store->measured(workload), problem ? metrics_of(*problem) : Metrics{}));
  if (spec) report->outputs_checked = spec->check_outputs;
  out.report = ResultReport(std::move(report));
  for (Attempt& a : store->attempts(workload)) {
    out.history.push_back({a.id, a.created_at, std::move(a.measurement)});
  }
  if (problem) out.problem = problem_info_of(*problem);
  return out;
}

namespace {

// The workloads to export (every one, or `workload`), each with its file in `folder`: the
// recording's name (spec, problem, GPU) with `extension` for ".csv". Workloads that differ only
// in what the name leaves out (two specs with one stem, a different kernel version) each get
// their id, so that none overwrites another.
std::vector<std::pair<std::string, WorkloadSummary>> export_files(const Store& store,
                                                                  const std::string& folder,
                                                                  std::optional<int64_t> workload,
                                                                  const std::string& extension) {
  std::vector<WorkloadSummary> chosen;
  std::map<std::string, int> uses;  // file name -> workloads that would get it
  for (auto& w : store.workloads()) {
    if (workload && w.id != *workload) continue;
    ++uses[recording_file_name(w.key)];
    chosen.push_back(std::move(w));
  }
  std::vector<std::pair<std::string, WorkloadSummary>> out;
  for (auto& w : chosen) {
    const std::string name = recording_file_name(w.key);
    std::string stem = name.substr(0, name.size() - 4);  // ".csv"
    if (uses[name] > 1) stem += "_workload_" + std::to_string(w.id);
    out.emplace_back((std::filesystem::path(folder) / (stem + extension)).string(), std::move(w));
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, WorkloadInfo>> export_recordings(const std::string& db,
                                                                    const std::string& folder,
                                                                    std::optional<int64_t> workload,
                                                                    const std::string& commit) {
  auto store = open_existing_store(db);
  std::filesystem::create_directories(folder);
  std::vector<std::pair<std::string, WorkloadInfo>> written;
  for (const auto& [path, w] : export_files(*store, folder, workload, ".csv")) {
    export_recording(*store, w.id, path, commit, shipped_data_root());
    written.emplace_back(path, workload_info(w));
  }
  return written;
}

std::vector<std::pair<std::string, WorkloadInfo>> export_t4(const std::string& db,
                                                            const std::string& folder,
                                                            std::optional<int64_t> workload) {
  std::vector<std::pair<std::string, WorkloadSummary>> files;
  {
    auto store = open_existing_store(db);
    files = export_files(*store, folder, workload, ".t4.json");
  }
  std::filesystem::create_directories(folder);
  std::vector<std::pair<std::string, WorkloadInfo>> written;
  for (const auto& [path, w] : files) {
    std::ofstream out(path);
    out << t4_results(db, w.id);
    if (!out) throw Error(ErrorCode::kIo, path + ": cannot write the T4 results");
    written.emplace_back(path, workload_info(w));
  }
  return written;
}

void export_workload(const std::string& db, int64_t workload, const std::string& path) {
  auto store = open_existing_store(db);
  export_recording(*store, workload, path, "", shipped_data_root());
}

std::string exported_json(const std::vector<std::pair<std::string, WorkloadInfo>>& written) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [path, w] : written) {
    out.push_back({{"path", path}, {"workload", w.id}, {"attempts", w.attempts}, {"ok", w.ok}});
  }
  return json_text(out, 2);
}

}  // namespace gputune
