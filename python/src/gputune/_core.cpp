// gputune._core: the C++ core as the pure-Python layer (gputune/__init__.py) sees it. Plain
// values cross the boundary (dicts, lists, strings); pandas and plots live in Python.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compile/compiler.h"
#include "gputune/error.h"
#include "gputune/spec.h"
#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "process/process_runner.h"
#include "replay/replay.h"
#include "run/runner.h"
#include "search/report.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "store/store.h"
#include "strategy/strategy.h"

namespace py = pybind11;

namespace gputune {
namespace {

py::dict device_dict(const DeviceInfo& d) {
  py::dict out;
  out["ordinal"] = d.ordinal;
  out["name"] = d.name;
  out["uuid"] = d.uuid;
  out["arch"] = d.arch();
  out["cc"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  out["sm_count"] = d.sm_count;
  out["l2_bytes"] = d.l2_bytes;
  out["memory_bytes"] = d.memory_bytes;
  out["driver_version"] = d.driver_version;
  return out;
}

py::dict measurement_dict(const Measurement& m) {
  py::dict out;
  out["config_index"] = m.config_index;
  out["config"] = m.config;  // JSON text; Python parses it
  out["status"] = status_name(m.status);
  out["median_ms"] = m.median_ms();
  out["spread"] = m.spread();
  out["samples"] = m.samples_ms.size();
  out["compile_ms"] = m.compile_ms;
  out["registers"] = m.registers;
  out["shared_bytes"] = m.shared_bytes;
  out["spill_bytes"] = m.spill_bytes;
  out["message"] = m.message;
  return out;
}

py::dict record_dict(const SearchRecord& r) {
  py::dict out;
  out["strategy"] = r.strategy;
  out["seed"] = r.seed;
  out["evaluated"] = r.evaluated;
  out["reused"] = r.reused;
  out["wall_s"] = r.wall_s;
  out["compile_s"] = r.compile_s;
  out["check_s"] = r.check_s;
  out["time_s"] = r.time_s;
  out["interrupted"] = r.interrupted;
  return out;
}

py::dict progress_dict(const SearchProgress& p) {
  py::dict out;
  out["done"] = p.done;
  out["total"] = p.total;
  out["measured"] = p.measured;
  out["failed"] = p.failed;
  out["elapsed_s"] = p.elapsed_s;
  out["best_ms"] = p.best_ms;
  out["best_config"] = p.best_config;
  return out;
}

Metrics metrics_for(const Problem* problem) { return problem ? metrics_of(*problem) : Metrics{}; }

// One row per variant, fastest ok ones first, then the failures.
py::list report_rows(const Report& report) {
  py::list rows;
  for (const ReportRow& row : report.ok) {
    py::dict d = measurement_dict(row.measurement);
    d["gbs"] = row.gbs;
    d["bandwidth_share"] = row.bandwidth_share;
    d["gflops"] = row.gflops;
    d["speedup"] = row.speedup;
    rows.append(d);
  }
  for (const Measurement& m : report.failed) rows.append(measurement_dict(m));
  return rows;
}

py::list history_list(const std::vector<Attempt>& attempts) {
  py::list out;
  for (const Attempt& a : attempts) {
    py::dict d = measurement_dict(a.measurement);
    d["id"] = a.id;
    d["created_at"] = a.created_at;
    out.append(d);
  }
  return out;
}

ArgumentSpec& find_argument(Spec& spec, const std::string& name) {
  std::string names;
  for (ArgumentSpec& argument : spec.arguments) {
    if (argument.name == name) return argument;
    names += (names.empty() ? "" : ", ") + argument.name;
  }
  throw Error(ErrorCode::kUsage,
              spec.path + ": no argument '" + name + "'; expected one of: " + names);
}

// The bytes of a C-contiguous buffer (a numpy array made contiguous by the Python layer).
SharedBytes buffer_bytes(const py::buffer& buffer, const std::string& what) {
  py::buffer_info info = buffer.request();
  py::ssize_t expected_stride = info.itemsize;
  for (py::ssize_t d = info.ndim - 1; d >= 0; --d) {
    if (info.shape[d] > 1 && info.strides[d] != expected_stride) {
      throw Error(ErrorCode::kUsage, what +
                                         ": the array is not C-contiguous; pass "
                                         "numpy.ascontiguousarray(array)");
    }
    expected_stride *= info.shape[d];
  }
  const auto* begin = static_cast<const unsigned char*>(info.ptr);
  return std::make_shared<const std::vector<unsigned char>>(begin,
                                                            begin + info.size * info.itemsize);
}

void set_data(Spec& spec, const std::string& name, const py::buffer& buffer) {
  ArgumentSpec& argument = find_argument(spec, name);
  if (!argument.is_buffer || argument.output) {
    throw Error(ErrorCode::kUsage, "argument '" + name + "' is " +
                                       (argument.output ? "an output" : "a scalar") +
                                       "; data applies to input buffers only");
  }
  argument.fill = Fill::kData;
  argument.data = buffer_bytes(buffer, "argument '" + name + "'");
}

void set_reference(Spec& spec, const std::string& name, const py::buffer& buffer) {
  ArgumentSpec& argument = find_argument(spec, name);
  if (!argument.output) {
    throw Error(ErrorCode::kUsage,
                "argument '" + name + "' is not an output; a reference applies to outputs only");
  }
  argument.reference = buffer_bytes(buffer, "reference for '" + name + "'");
}

py::dict spec_info(const Spec& spec) {
  py::dict out;
  out["path"] = spec.path;
  out["description"] = spec.description;
  out["kernel_path"] = spec.kernel_path;
  out["kernel_name"] = spec.kernel_name.text;
  out["spec_hash"] = spec.spec_hash();
  out["source_hash"] = spec.source_hash();
  py::list problem;
  for (const auto& [name, expr] : spec.problem) problem.append(py::make_tuple(name, expr.text));
  out["problem"] = problem;
  py::list arguments;
  for (const ArgumentSpec& a : spec.arguments) {
    py::dict d;
    d["name"] = a.name;
    d["type"] = type_name(a.type);
    d["is_buffer"] = a.is_buffer;
    d["output"] = a.output;
    d["count"] = a.count.text;
    d["value"] = a.value.text;
    d["has_data"] = static_cast<bool>(a.data);
    d["has_reference"] = static_cast<bool>(a.reference);
    arguments.append(d);
  }
  out["arguments"] = arguments;
  return out;
}

// What Python needs to lay out results: problem values, dimensions, buffer sizes.
py::dict problem_info(const Problem& problem) {
  py::dict out;
  out["title"] = report_title(problem);
  out["problem_json"] = problem.problem_json();
  py::list values;
  for (const auto& [name, value] : problem.problem_values()) {
    values.append(py::make_tuple(name, value));
  }
  out["problem_values"] = values;
  py::list dimensions;
  for (const Dimension& d : problem.space().dimensions()) {
    py::list dvalues;
    for (const Value& v : d.values) {
      if (v.is_integer()) {
        dvalues.append(static_cast<int64_t>(v.as_number()));
      } else if (v.is_number()) {
        dvalues.append(v.as_number());
      } else {
        dvalues.append(v.as_symbol());
      }
    }
    dimensions.append(py::make_tuple(d.name, dvalues, d.is_transform));
  }
  out["dimensions"] = dimensions;
  out["size"] = problem.space().size();
  out["variants"] = problem.space().count_valid();
  out["baseline_index"] = problem.baseline_index();
  py::list buffers;
  for (const BufferShape& b : problem.buffers()) {
    buffers.append(py::make_tuple(b.name, type_name(b.type), b.count));
  }
  out["buffers"] = buffers;
  return out;
}

// Calls the Python progress function with the GIL held; Ctrl-C (or an exception in the
// function) sets the stop flag, so the search ends after the variant in flight and keeps what
// it measured.
class PythonProgress {
 public:
  explicit PythonProgress(py::object callback) : callback_(std::move(callback)) {}

  void operator()(const SearchProgress& p) {
    events_.emplace_back(p.done, p.elapsed_s);
    py::gil_scoped_acquire gil;
    if (stop_) return;
    if (PyErr_CheckSignals() != 0) {
      handle(py::error_already_set());
      return;
    }
    if (callback_.is_none()) return;
    try {
      callback_(progress_dict(p));
    } catch (py::error_already_set& e) {
      handle(std::move(e));
    }
  }

  const std::atomic<bool>* stop_flag() const { return &stop_; }
  bool interrupted() const { return interrupted_; }
  const std::vector<std::pair<uint64_t, double>>& events() const { return events_; }
  // An exception other than KeyboardInterrupt from the callback: raised after the search.
  void rethrow() {
    if (error_) {
      std::unique_ptr<py::error_already_set> error = std::move(error_);
      throw std::move(*error);
    }
  }

 private:
  void handle(py::error_already_set e) {
    stop_ = true;
    if (e.matches(PyExc_KeyboardInterrupt)) {
      interrupted_ = true;
    } else {
      error_ = std::make_unique<py::error_already_set>(std::move(e));
    }
  }

  py::object callback_;
  std::atomic<bool> stop_{false};
  bool interrupted_ = false;
  std::unique_ptr<py::error_already_set> error_;
  std::vector<std::pair<uint64_t, double>> events_;
};

// As the CLI does: compilation in a pool of worker processes (NVRTC serialises inside one),
// with the module cache unless `cache` is "off" ("": the default folder).
std::unique_ptr<CompilePool> make_compiler(size_t jobs, const std::string& cache) {
  std::shared_ptr<ModuleCache> modules;
  if (cache != "off") {
    modules =
        std::make_shared<ModuleCache>(cache.empty() ? ModuleCache::default_directory() : cache);
  }
  return std::make_unique<CompilePool>(jobs, make_nvrtc_compiler, modules);
}

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in && std::memcmp(header, "SQLite format 3", 16) == 0;
}

// A replay runner over a recording (CSV) or a database, for the problem's workload.
// A recording of another spec text still replays when every recorded config has the same index
// in this problem's space (e.g. only comments or input data changed).
std::unique_ptr<Runner> make_replay(const std::string& path, const Problem& problem) {
  if (!is_sqlite_file(path)) {
    Recording recording = load_recording(path);
    const Spec& spec = problem.spec();
    if (recording.info.problem_json != problem.problem_json()) {
      throw Error(ErrorCode::kUsage, path + ": recorded at " + recording.info.problem_json +
                                         ", not at " + problem.problem_json() +
                                         "; expected the same problem values (set=)");
    }
    if (recording.info.spec_hash != spec.spec_hash() ||
        recording.info.source_hash != spec.source_hash()) {
      const SearchSpace& space = problem.space();
      for (const Measurement& m : recording.measurements) {
        if (m.config_index >= space.size() || space.json(m.config_index) != m.config) {
          throw Error(ErrorCode::kUsage,
                      path + ": recorded for another spec or kernel, and config " +
                          std::to_string(m.config_index) + " (" + m.config +
                          ") is not that config in this space; expected a recording of " +
                          report_title(problem));
        }
      }
    }
    return make_replay_runner(std::move(recording));
  }
  auto store = open_sqlite_store(path, true);
  const Spec& spec = problem.spec();
  for (const WorkloadSummary& w : store->workloads(spec.spec_hash(), problem.problem_json())) {
    if (w.key.source_hash == spec.source_hash()) return make_replay_runner(*store, w.id);
  }
  throw Error(ErrorCode::kUsage, path + ": no workload of " + report_title(problem) +
                                     " (same spec and kernel source) to replay");
}

py::dict search(const Spec& spec, const std::string& db, const std::string& strategy,
                std::optional<int64_t> budget_evaluations, std::optional<double> budget_seconds,
                std::optional<uint64_t> seed, bool force, const std::vector<int>& devices,
                bool warm_cache, double max_seconds, const std::string& replay, size_t jobs,
                const std::string& cache, py::object progress) {
  SearchOptions options;
  options.strategy = strategy;
  if (!strategy.empty()) make_strategy(strategy, 0);  // an unknown name fails before the GPU
  options.budget_evaluations = budget_evaluations;
  options.budget_seconds = budget_seconds;
  options.seed = seed;
  options.force = force;

  Problem problem(spec);
  std::unique_ptr<Runner> runner;
  std::unique_ptr<Compiler> compiler;
  if (!replay.empty()) {
    runner = make_replay(replay, problem);
    compiler = make_replay_compiler();
  } else {
    // Compilers and GPU workers are forked processes, as in the CLI: this process (Python's)
    // never initialises CUDA, and a variant that wrecks its context costs that variant only.
    compiler = make_compiler(jobs, cache);
    TimingOptions timing;
    timing.flush_l2 = !warm_cache;
    timing.max_seconds = max_seconds;
    py::gil_scoped_release release;  // workers start: CUDA, buffers, the reference
    runner = make_process_runner(problem, devices, timing, *compiler);
  }
  auto store = open_sqlite_store(db);

  PythonProgress tracker(std::move(progress));
  SearchResult result;
  {
    py::gil_scoped_release release;
    result = run_search(problem, *runner, *compiler, *store, options, std::ref(tracker),
                        tracker.stop_flag());
  }
  tracker.rethrow();

  Report report =
      make_report(report_title(problem), result.device, result.copy_bandwidth_gbs, result.baseline,
                  store->measured(result.workload), metrics_for(&problem));
  py::dict out;
  out["workload"] = result.workload;
  out["device"] = device_dict(result.device);
  out["copy_bandwidth_gbs"] = result.copy_bandwidth_gbs;
  out["baseline"] = measurement_dict(result.baseline);
  out["rows"] = report_rows(report);
  py::list evaluated;
  for (const Measurement& m : result.evaluated) evaluated.append(measurement_dict(m));
  out["evaluated"] = evaluated;
  out["events"] = tracker.events();
  out["record"] = record_dict(result.record);
  out["interrupted"] = result.record.interrupted || tracker.interrupted();
  out["problem"] = problem_info(problem);
  out["spec"] = spec_info(spec);
  out["nvrtc_version"] = replay.empty() ? nvrtc_version() : std::string();
  return out;
}

py::dict compile_only(const Spec& spec, const std::string& arch, size_t jobs,
                      const std::string& cache, py::object progress) {
  Problem problem(spec);
  auto compiler = make_compiler(jobs, cache);
  PythonProgress tracker(std::move(progress));
  std::vector<Measurement> results;
  {
    py::gil_scoped_release release;
    results = compile_all(problem, *compiler, arch, std::ref(tracker), tracker.stop_flag());
  }
  tracker.rethrow();
  py::dict out;
  py::list rows;
  for (const Measurement& m : results) rows.append(measurement_dict(m));
  out["rows"] = rows;
  out["events"] = tracker.events();
  out["interrupted"] = tracker.interrupted();
  out["problem"] = problem_info(problem);
  out["spec"] = spec_info(spec);
  out["arch"] = arch;
  out["nvrtc_version"] = nvrtc_version();
  return out;
}

py::dict summary_dict(const WorkloadSummary& w) {
  py::dict out;
  out["id"] = w.id;
  out["spec_path"] = w.key.spec_path;
  out["spec_hash"] = w.key.spec_hash;
  out["source_hash"] = w.key.source_hash;
  out["kernel_name"] = w.key.kernel_name;
  out["problem_json"] = w.key.problem_json;
  out["device"] = device_dict(w.key.device);
  out["nvrtc_version"] = w.key.nvrtc_version;
  out["attempts"] = w.attempts;
  out["ok"] = w.ok;
  out["best"] = w.best ? py::object(measurement_dict(*w.best)) : py::object(py::none());
  out["baseline"] = w.baseline ? py::object(measurement_dict(*w.baseline)) : py::object(py::none());
  out["baseline_index"] = w.baseline_index;
  out["created_at"] = w.created_at;
  return out;
}

std::unique_ptr<Store> open_existing(const std::string& db) {
  std::ifstream probe(db);
  if (!probe) {
    throw Error(ErrorCode::kIo, db + ": no such database (run gputune search first, or --db)");
  }
  return open_sqlite_store(db, true);
}

py::list workloads(const std::string& db, const std::optional<Spec>& spec) {
  auto store = open_existing(db);
  py::list out;
  std::string spec_hash, problem_json, source_hash;
  if (spec) {
    Problem problem(*spec);
    spec_hash = spec->spec_hash();
    source_hash = spec->source_hash();
    problem_json = problem.problem_json();
  }
  for (const WorkloadSummary& w : store->workloads(spec_hash, problem_json)) {
    if (spec && w.key.source_hash != source_hash) continue;
    out.append(summary_dict(w));
  }
  return out;
}

// A stored workload as search() returns it, without running anything. With the spec, the
// rows get its metrics (GB/s, GFLOP/s).
py::dict load_workload(const std::string& db, int64_t workload, const std::optional<Spec>& spec) {
  auto store = open_existing(db);
  std::optional<WorkloadSummary> summary;
  for (const WorkloadSummary& w : store->workloads()) {
    if (w.id == workload) summary = w;
  }
  if (!summary) {
    throw Error(ErrorCode::kUsage, db + ": no workload " + std::to_string(workload));
  }
  std::unique_ptr<Problem> problem;
  if (spec) problem = std::make_unique<Problem>(*spec);
  const double bandwidth = store->copy_bandwidth(summary->key.device).value_or(0);
  Report report =
      make_report(summary->key.spec_path, summary->key.device, bandwidth, summary->baseline,
                  store->measured(workload), metrics_for(problem.get()));
  py::dict out;
  out["workload"] = workload;
  out["summary"] = summary_dict(*summary);
  out["device"] = device_dict(summary->key.device);
  out["copy_bandwidth_gbs"] = bandwidth;
  out["baseline"] =
      summary->baseline ? py::object(measurement_dict(*summary->baseline)) : py::object(py::none());
  out["rows"] = report_rows(report);
  out["history"] = history_list(store->attempts(workload));
  if (problem) {
    out["problem"] = problem_info(*problem);
    out["spec"] = spec_info(*spec);
  }
  return out;
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const Error& e) {
    py::object cls =
        py::module_::import("gputune._errors").attr("error_class")(error_code_name(e.code()));
    PyErr_SetString(cls.ptr(), e.what());
  }
}

}  // namespace
}  // namespace gputune

PYBIND11_MODULE(_core, m) {
  using namespace gputune;
  m.doc() = "gputune's C++ core; use the gputune package, not this module";
  py::register_exception_translator(&translate);

  py::class_<Spec>(m, "Spec")
      .def("info", &spec_info)
      .def("problem", [](const Spec& s) { return problem_info(Problem(s)); })
      .def("set_data", &set_data, py::arg("name"), py::arg("buffer"))
      .def("set_reference", &set_reference, py::arg("name"), py::arg("buffer"))
      .def_property_readonly("path", [](const Spec& s) { return s.path; })
      .def_property_readonly("text", [](const Spec& s) { return s.text; });

  m.def("resolve_spec", &resolve_spec, py::arg("path_or_name"));
  m.def("load_spec", &load_spec, py::arg("path"), py::arg("overrides") = Overrides{});
  m.def("parse_spec", &parse_spec, py::arg("text"), py::arg("path"),
        py::arg("overrides") = Overrides{});
  m.def(
      "recording_spec",
      [](const std::string& path) { return recording_problem(load_recording(path)).spec(); },
      py::arg("path"));
  m.def("search", &search, py::arg("spec"), py::arg("db"), py::arg("strategy") = "",
        py::arg("budget_evaluations") = py::none(), py::arg("budget_seconds") = py::none(),
        py::arg("seed") = py::none(), py::arg("force") = false,
        py::arg("devices") = std::vector<int>{0}, py::arg("warm_cache") = false,
        py::arg("max_seconds") = 1.0, py::arg("replay") = "", py::arg("jobs") = 0,
        py::arg("cache") = "", py::arg("progress") = py::none());
  m.def("compile_only", &compile_only, py::arg("spec"), py::arg("arch") = "sm_90",
        py::arg("jobs") = 0, py::arg("cache") = "", py::arg("progress") = py::none());
  m.def("workloads", &workloads, py::arg("db"), py::arg("spec") = py::none());
  m.def("load_workload", &load_workload, py::arg("db"), py::arg("workload"),
        py::arg("spec") = py::none());
  m.def(
      "export_recording",
      [](const std::string& db, int64_t workload, const std::string& path) {
        auto store = open_existing(db);
        export_recording(*store, workload, path);
      },
      py::arg("db"), py::arg("workload"), py::arg("path"));
  m.def("parse_budget", [](const std::string& text) -> py::object {
    int64_t evaluations = 0;
    double seconds = 0;
    if (!parse_budget(text, &evaluations, &seconds)) return py::none();
    return py::make_tuple(evaluations, seconds);
  });
  m.def("strategy_names", &strategy_names);
  m.def("shipped_specs", &shipped_specs);
  m.def("list_gpus", [] {
    py::list out;
    for (const DeviceInfo& d : list_gpus()) out.append(device_dict(d));
    return out;
  });
  m.def("nvrtc_version", &nvrtc_version);
}
