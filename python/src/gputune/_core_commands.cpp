// gputune._core's commands besides search: release, merge, import kt-cache, export (recordings
// and T4) and plan. Their requests are the session's own types; what they return is the JSON
// the command line writes with --json, so both front ends give one shape.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gputune/_core.h"
#include "gputune/error.h"
#include "gputune/release.h"
#include "gputune/session.h"

namespace gputune {
namespace {

// What a command returned with the warnings it has for the user, which Python raises.
py::dict with_warnings(const std::string& json, const std::vector<std::string>& warnings) {
  py::dict out;
  out["result"] = from_json(json);
  out["warnings"] = warnings;
  return out;
}

// build_release with `say` (a Python function of one line, or None) hearing its progress and
// warnings, as the command line's stderr does.
py::object release(const ReleaseRequest& request, const py::object& say) {
  std::function<void(const std::string&)> hear;
  if (!say.is_none()) {
    hear = [&say](const std::string& line) {
      py::gil_scoped_acquire gil;
      say(line);
    };
  }
  ReleaseSummary summary;
  {
    py::gil_scoped_release unlocked;  // compiling the kept configs takes a while
    summary = build_release(request, hear);
  }
  return from_json(summary.json());
}

py::object exported(const std::string& db, const std::string& folder,
                    std::optional<int64_t> workload, const std::string& format,
                    const std::string& commit) {
  if (format == "t4") return from_json(exported_json(export_t4(db, folder, workload)));
  if (format != "recording") {
    throw Error(ErrorCode::kUsage, "export(): format '" + format +
                                       "' is unknown; expected "
                                       "recording or t4");
  }
  return from_json(exported_json(export_recordings(db, folder, workload, commit)));
}

}  // namespace

void bind_commands(py::module_& m) {
  py::class_<ReleaseRequest>(m, "ReleaseRequest")
      .def(py::init<>())
      .def_readwrite("databases", &ReleaseRequest::databases)
      .def_readwrite("output", &ReleaseRequest::output)
      .def_readwrite("specs", &ReleaseRequest::specs)
      .def_readwrite("embed", &ReleaseRequest::embed)
      .def_readwrite("no_code", &ReleaseRequest::no_code)
      .def_readwrite("top", &ReleaseRequest::top)
      .def_readwrite("kernels", &ReleaseRequest::kernels)
      .def_readwrite("force", &ReleaseRequest::force)
      .def_readwrite("commit", &ReleaseRequest::commit)
      .def_readwrite("jobs", &ReleaseRequest::jobs)
      .def_readwrite("cache_dir", &ReleaseRequest::cache_dir)
      .def_readwrite("use_cache", &ReleaseRequest::use_cache);
  m.def("release", &release, py::arg("request"), py::arg("say") = py::none());
  m.def("release_dump", &release_dump_text, py::arg("path"));

  py::class_<CampaignRequest>(m, "CampaignRequest")
      .def(py::init<>())
      .def_readwrite("specs", &CampaignRequest::specs)
      .def_readwrite("overrides", &CampaignRequest::overrides)
      .def_readwrite("sweeps", &CampaignRequest::sweeps)
      .def_readwrite("shards", &CampaignRequest::shards)
      .def_readwrite("db_pattern", &CampaignRequest::db_pattern)
      .def_readwrite("search_options", &CampaignRequest::search_options);
  m.def(
      "plan",
      [](const CampaignRequest& request) { return from_json(plan_json(plan_campaign(request))); },
      py::arg("request"));

  m.def(
      "merge",
      [](const std::string& output, const std::vector<std::string>& inputs) {
        const MergeOutcome outcome = merge_databases(output, inputs);
        return with_warnings(outcome.json(), outcome.warnings);
      },
      py::arg("output"), py::arg("inputs"));
  m.def(
      "import_kernel_tuner",
      [](const std::string& file, const Spec& spec, const std::string& db, const std::string& cc,
         int sm_count) {
        ImportedGpu gpu;
        if (!cc.empty()) {
          const auto parsed = parse_compute_capability(cc);
          if (!parsed) {
            throw Error(ErrorCode::kUsage, "cc='" + cc +
                                               "' is not a compute capability; expected "
                                               "MAJOR.MINOR, as '9.0' for an H100");
          }
          gpu.cc_major = parsed->first;
          gpu.cc_minor = parsed->second;
        }
        if (sm_count < 0) {
          throw Error(ErrorCode::kUsage, "sm_count=" + std::to_string(sm_count) +
                                             ": expected the GPU's number of SMs, as 132");
        }
        gpu.sm_count = sm_count;
        const PriorImport imported = import_kernel_tuner(file, spec, db, gpu);
        return with_warnings(imported.json(), imported.warnings);
      },
      py::arg("file"), py::arg("spec"), py::arg("db"), py::arg("cc") = "", py::arg("sm_count") = 0);
  m.def("export", &exported, py::arg("db"), py::arg("folder"), py::arg("workload") = py::none(),
        py::arg("format") = "recording", py::arg("commit") = "");
}

}  // namespace gputune
