// gputune._core: the session facade (gputune/session.h) as the pure-Python layer sees it.
// Plain values cross the boundary (dicts, lists, strings); records cross as the JSON text the
// command line writes (`gputune search --json`, `show --json`, ...), so both front ends show
// the same fields. A search's request is the session's SearchRequest itself, its options set by
// name from the table the command line uses (gputune/search_options.h). pandas and plots live
// in Python.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/_core.h"
#include "gputune/analysis.h"
#include "gputune/argument_mismatch.h"
#include "gputune/error.h"
#include "gputune/host_check.h"
#include "gputune/results.h"
#include "gputune/search_options.h"
#include "gputune/select.h"
#include "gputune/session.h"
#include "gputune/spec.h"
#include "gputune/transforms.h"

namespace gputune {

py::object from_json(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

namespace {

// Text read from a database, which another machine or program may have written: bytes that
// are not UTF-8 become U+FFFD, as in the command line's JSON, instead of a UnicodeDecodeError.
py::str stored_text(const std::string& text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::dict device_dict(const DeviceInfo& d) {
  py::dict out;
  out["ordinal"] = d.ordinal;
  out["name"] = stored_text(d.name);
  out["uuid"] = stored_text(d.uuid);
  out["arch"] = d.arch();
  out["cc"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  out["sm_count"] = d.sm_count;
  out["l2_bytes"] = d.l2_bytes;
  out["memory_bytes"] = d.memory_bytes;
  out["driver_version"] = d.driver_version;
  return out;
}

// A result record: the JSON text gputune search --json writes for a variant, as a dict.
py::object record(const Measurement& m) { return from_json(measurement_record(m)); }

py::list records(const std::vector<Measurement>& measurements) {
  py::list out;
  for (const Measurement& m : measurements) out.append(record(m));
  return out;
}

py::dict progress_dict(const SearchProgress& p) {
  py::dict out;
  out["phase"] = phase_name(p.phase);
  out["done"] = p.done;
  out["total"] = p.total;
  out["measured"] = p.measured;
  out["failed"] = p.failed;
  out["elapsed_s"] = p.elapsed_s;
  out["best_ms"] = p.best_ms;
  out["best_config"] = p.best_config;
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

// A read-only numpy array over the bytes, no copy: the array keeps them alive, so a check may
// keep it after it returns.
py::array numpy_view(const HostArray& a) {
  auto* owner = new SharedBytes(a.bytes);
  py::capsule base(owner, [](void* p) { delete static_cast<SharedBytes*>(p); });
  py::array array(py::dtype::from_args(py::str(type_name(a.type))),
                  {static_cast<py::ssize_t>(a.count())}, a.bytes->data(), base);
  array.attr("setflags")(py::arg("write") = false);
  return array;
}

// tune(check=...) as the session calls it, from the search's thread with the GIL taken:
// `function(outputs, inputs, config)` over dicts of numpy views returns "" or why the outputs
// are wrong (tuning.py wraps the user's function so). What escapes it (KeyboardInterrupt, a
// misuse such as a result that is no verdict) ends the search as an Error, and is raised again
// once the search has unwound.
class PythonCheck {
 public:
  explicit PythonCheck(py::object function) : function_(std::move(function)) {}

  HostCheck host_check() {
    return [this](const HostCheckArrays& arrays) { return call(arrays); };
  }

  void rethrow() {
    if (escaped_) {
      std::unique_ptr<py::error_already_set> error = std::move(escaped_);
      throw std::move(*error);
    }
  }

 private:
  std::string call(const HostCheckArrays& arrays) {
    py::gil_scoped_acquire gil;
    try {
      py::dict outputs, inputs;
      for (const HostArray& a : arrays.outputs) outputs[py::str(a.name)] = numpy_view(a);
      for (const HostArray& a : arrays.inputs) inputs[py::str(a.name)] = numpy_view(a);
      return function_(outputs, inputs, arrays.config).cast<std::string>();
    } catch (py::error_already_set& e) {
      const std::string what = e.what();
      escaped_ = std::make_unique<py::error_already_set>(std::move(e));
      throw Error(ErrorCode::kUsage, "the check function raised " + what);
    }
  }

  py::object function_;
  std::unique_ptr<py::error_already_set> escaped_;
};

// The bridge a search uses, called once on arrays given here (name, type, bytes): for tests,
// which have no GPU to run a search on.
std::string call_check(py::object function, const std::vector<py::tuple>& outputs,
                       const std::vector<py::tuple>& inputs, const std::string& config) {
  auto arrays_of = [](const std::vector<py::tuple>& items) {
    std::vector<HostArray> arrays;
    for (const py::tuple& item : items) {
      HostArray& a = arrays.emplace_back();
      a.name = item[0].cast<std::string>();
      if (!parse_type(item[1].cast<std::string>(), &a.type)) {
        throw Error(ErrorCode::kUsage, "no type " + item[1].cast<std::string>());
      }
      const std::string bytes = item[2].cast<std::string>();
      a.bytes = std::make_shared<const std::vector<unsigned char>>(bytes.begin(), bytes.end());
    }
    return arrays;
  };
  HostCheckArrays arrays{config, arrays_of(outputs), arrays_of(inputs)};
  PythonCheck check(std::move(function));
  try {
    return check.host_check()(arrays);
  } catch (const Error&) {
    check.rethrow();
    throw;
  }
}

// search(request): the request's spec is a file or a shipped spec's name, or its inline_spec a
// Spec (tune()), or neither (the replay's own); its options were set by name, as the command
// line sets them, and the facade checks them.
py::dict search_from_python(SearchRequest request, py::object progress, py::object check) {
  std::optional<PythonCheck> python_check;
  if (!check.is_none()) {
    python_check.emplace(std::move(check));
    request.host_check = python_check->host_check();
  }

  PythonProgress tracker(std::move(progress));
  SearchOutcome outcome;
  std::exception_ptr failure;
  {
    // Compilers and GPU workers are forked processes: this process (Python's) never
    // initialises CUDA, and a variant that wrecks its context costs that variant only.
    py::gil_scoped_release release;
    try {
      outcome = gputune::search(request, std::ref(tracker), tracker.stop_flag());
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (failure) {
    if (python_check) python_check->rethrow();  // what the check raised ended the search
    std::rethrow_exception(failure);
  }
  tracker.rethrow();

  py::dict out;
  out["events"] = tracker.events();
  out["interrupted"] = outcome.interrupted || tracker.interrupted();
  out["problem"] = problem_dict(outcome.problem);
  out["spec"] = spec_info(outcome.spec);
  out["spec_object"] = outcome.spec;  // names the knobs of a stored analysis
  out["nvrtc_version"] = outcome.nvrtc_version;
  out["warnings"] = outcome.warnings;
  if (outcome.compile_only) {
    out["rows"] = records(outcome.compiled);
    out["arch"] = outcome.arch;
    return out;
  }
  out["db"] = outcome.db.empty() ? py::object(py::none()) : py::object(py::str(outcome.db));
  out["workload"] = outcome.workload;
  out["device"] = device_dict(outcome.device);
  out["copy_bandwidth_gbs"] = outcome.copy_bandwidth_gbs;
  out["report"] = outcome.report.json(ResultReport::kAllRows);
  out["evaluated"] = records(outcome.evaluated);
  return out;
}

py::list workloads(const std::string& db, const std::optional<Spec>& spec) {
  py::list out;
  for (const WorkloadInfo& w : stored_workloads(db, spec))
    out.append(from_json(workload_record(w)));
  return out;
}

// A stored workload as search() returns it, without running anything. With the spec, the
// rows get its metrics (GB/s, GFLOP/s).
py::dict load_workload(const std::string& db, int64_t workload, const std::optional<Spec>& spec) {
  StoredWorkload stored = load_stored(db, workload, spec);
  py::dict out;
  out["db"] = db;
  out["workload"] = workload;
  out["summary"] = from_json(workload_record(stored.summary));
  out["device"] = device_dict(stored.summary.device);
  out["copy_bandwidth_gbs"] = stored.copy_bandwidth_gbs;
  out["report"] = stored.report.json(ResultReport::kAllRows);
  py::list history;
  for (const AttemptInfo& a : stored.history) {
    py::object row = record(a.measurement);
    row["id"] = a.id;
    row["created_at"] = stored_text(a.created_at);
    history.append(row);
  }
  out["history"] = history;
  // The parameters in the spec's order (records' configs are sorted by name).
  py::list parameters;
  if (!stored.history.empty()) {
    py::dict config = from_json(stored.history.front().measurement.config);
    for (const auto& item : config) parameters.append(item.first);
  }
  out["parameters"] = parameters;
  if (stored.problem) {
    out["problem"] = problem_dict(*stored.problem);
    out["spec"] = spec_info(*spec);
  }
  return out;
}

// An analysis as Python's Analysis reads it: counters as (metric, value, unit, step) rows.
py::dict analysis_dict(const AnalysisOutcome& a) {
  py::dict out;
  out["profiled"] = a.profiled;
  out["message"] = a.message;
  out["config"] = from_json(a.config.empty() ? "{}" : a.config);
  out["report"] = a.report;
  out["step"] = a.step;
  out["verdict"] = a.verdict;
  out["knobs"] = a.knobs;
  py::list counters;
  for (const auto& [metric, value] : a.counters) {
    const CounterMeaning meaning = counter_meaning(metric);
    counters.append(py::make_tuple(metric, value, meaning.unit, meaning.step));
  }
  out["counters"] = counters;
  out["stall_shares"] = a.stall_shares;
  out["throughput_pct"] = a.throughput_pct;
  out["profile_s"] = a.profile_s;
  out["stored"] = a.stored;
  out["source"] = a.source;
  out["warnings"] = a.warnings;
  return out;
}

py::dict analyze_from_python(const std::string& spec, const ProblemOverrides& overrides,
                             std::optional<std::string> db, const std::string& config, bool best,
                             int device, double timeout, const std::string& ncu,
                             const std::string& profiler) {
  AnalyzeRequest request;
  request.spec = spec;
  request.overrides = overrides;
  request.db = std::move(db);
  request.config = config;
  request.best = best;
  request.device = device;
  request.timeout_s = timeout;
  request.ncu = ncu;
  request.profiler = profiler;
  AnalysisOutcome outcome;
  {
    // ncu runs a program of its own under a watchdog, for up to `timeout` seconds.
    py::gil_scoped_release release;
    outcome = analyze(request);
  }
  return analysis_dict(outcome);
}

// The core's messages name the command line's options ("use --compile-only", "--budget 3
// parsecs: expected ..."); a Python caller gave keywords. Each option of the search table (and
// --db) becomes its keyword: a flag "name=True", an option with a value "name=" before
// its value. The other commands' options that Python takes as keywords (release(), select())
// become theirs too, "name=" only before what reads as a value (a number, a quoted or
// capitalised word, sm_90) and the bare name before prose ("--embed and --no-code"). A message's
// own "(x=... in Python)" aside then says nothing new and goes.
std::string in_python_spelling(const std::string& message) {
  enum class Kind { kSearch, kFlag, kValue };
  struct Spelling {
    std::string name, keyword;
    Kind kind;
  };
  std::vector<Spelling> spellings = {
      {"db", "db=", Kind::kSearch},           {"cc", "cc", Kind::kValue},
      {"sm-count", "sm_count", Kind::kValue}, {"device-name", "device_name", Kind::kValue},
      {"embed", "embed", Kind::kValue},       {"top", "top", Kind::kValue},
      {"spec", "spec", Kind::kValue},         {"no-code", "no_code=True", Kind::kFlag}};
  for (const SearchOption& option : search_options()) {
    std::string keyword = option.name;
    std::replace(keyword.begin(), keyword.end(), '-', '_');
    spellings.push_back(
        {option.name, keyword + (option.value.empty() ? "=True" : "="), Kind::kSearch});
  }
  // Longest first, so that --replay-unverified is not read as --replay.
  std::sort(spellings.begin(), spellings.end(),
            [](const auto& a, const auto& b) { return a.name.size() > b.name.size(); });
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  };
  // Prose is a word of small letters; anything else after an option is its value.
  const auto value_follows = [&](size_t at) {
    if (at + 1 >= message.size() || (message[at] != ' ' && message[at] != '=')) return false;
    size_t end = at + 1;
    while (end < message.size() && std::islower(static_cast<unsigned char>(message[end]))) ++end;
    return end == at + 1 || (end < message.size() && word_char(message[end]));
  };
  std::string out;
  for (size_t at = 0; at < message.size();) {
    bool replaced = false;
    if (message.compare(at, 2, "--") == 0 && (at == 0 || !word_char(message[at - 1]))) {
      for (const auto& [name, keyword, kind] : spellings) {
        const size_t end = at + 2 + name.size();
        if (message.compare(at + 2, name.size(), name) != 0) continue;
        if (end < message.size() && word_char(message[end])) continue;
        at = end;
        replaced = true;
        if (kind == Kind::kSearch || kind == Kind::kFlag) {
          out += keyword;
          // "--budget 50" and "--budget=50" are both "budget=50".
          if (keyword.back() == '=' && at < message.size() &&
              (message[at] == ' ' || message[at] == '=')) {
            ++at;
          }
        } else if (kind == Kind::kValue && value_follows(at)) {
          out += keyword + "=";
          ++at;
        } else {
          out += keyword;
        }
        break;
      }
    }
    if (!replaced) out += message[at++];
  }
  for (size_t open = out.find(" ("); open != std::string::npos; open = out.find(" (", open + 1)) {
    const size_t close = out.find(')', open);
    if (close != std::string::npos && close >= open + 12 &&
        out.compare(close - 10, 10, " in Python") == 0 && out.find('(', open + 2) > close) {
      out.erase(open, close + 1 - open);
    }
  }
  return out;
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const ArgumentMismatch& e) {
    // Arguments that do not fit the kernel's parameters: Python's TypeError, as a call's are.
    py::object cls = py::module_::import("gputune._errors").attr("ArgumentError");
    PyErr_SetString(cls.ptr(), in_python_spelling(e.what()).c_str());
  } catch (const Error& e) {
    py::object cls =
        py::module_::import("gputune._errors").attr("error_class")(error_code_name(e.code()));
    PyErr_SetString(cls.ptr(), in_python_spelling(e.what()).c_str());
  }
}

}  // namespace
}  // namespace gputune

PYBIND11_MODULE(_core, m) {
  using namespace gputune;
  m.doc() = "gputune's C++ core; use the gputune package, not this module";
  py::register_exception_translator(&translate);

  bind_spec(m);
  bind_commands(m);
  py::class_<SearchRequest>(m, "SearchRequest")
      .def(py::init<>())
      .def_readwrite("spec", &SearchRequest::spec)
      .def_readwrite("inline_spec", &SearchRequest::inline_spec)
      .def_readwrite("overrides", &SearchRequest::overrides)
      .def_readwrite("db", &SearchRequest::db)
      .def(
          "set",
          [](SearchRequest& r, const std::string& name, const std::string& text) {
            set_search_option(&r, name, text);
          },
          py::arg("name"), py::arg("text") = "");
  m.def("search_options", [] {
    py::list out;
    for (const SearchOption& o : search_options()) {
      out.append(py::make_tuple(o.name, o.value, o.default_text, o.help));
    }
    return out;
  });
  m.def("search", &search_from_python, py::arg("request"), py::arg("progress") = py::none(),
        py::arg("check") = py::none());
  m.def("_call_check", &call_check, py::arg("function"), py::arg("outputs"), py::arg("inputs"),
        py::arg("config") = "{}");
  m.def("workloads", &workloads, py::arg("db"), py::arg("spec") = py::none());
  m.def("why_nothing_measured", &why_nothing_measured, py::arg("db"), py::arg("spec"));
  m.def("load_workload", &load_workload, py::arg("db"), py::arg("workload"),
        py::arg("spec") = py::none());
  m.def(
      "stored_analysis",
      [](const std::string& db, int64_t workload, uint64_t config_index,
         const std::optional<Spec>& spec) {
        return analysis_dict(stored_analysis(db, workload, config_index, spec));
      },
      py::arg("db"), py::arg("workload"), py::arg("config_index"), py::arg("spec") = py::none());
  AnalyzeRequest analyze_defaults;
  m.def("analyze", &analyze_from_python, py::arg("spec"), py::arg("overrides") = ProblemOverrides{},
        py::arg("db") = py::none(), py::arg("config") = "", py::arg("best") = false,
        py::arg("device") = analyze_defaults.device,
        py::arg("timeout") = analyze_defaults.timeout_s, py::arg("ncu") = analyze_defaults.ncu,
        py::arg("profiler") = analyze_defaults.profiler);
  m.def(
      "transforms", [](const Spec& spec) { return transforms_report(spec).json(); },
      py::arg("spec"));
  m.def(
      "variant_source",
      [](const Spec& spec, const std::string& config, std::optional<uint64_t> index,
         const std::string& best_db) {
        return variant_source(spec, {config, index, best_db}).json();
      },
      py::arg("spec"), py::arg("config") = "", py::arg("index") = py::none(),
      py::arg("best_db") = "");
  m.def("export_recording", &export_workload, py::arg("db"), py::arg("workload"), py::arg("path"));
  m.def("strategy_names", &strategy_list);
  m.def("shipped_specs", [] {
    py::list out;
    for (const ShippedSpec& spec : shipped_spec_list()) out.append(from_json(spec.json()));
    return out;
  });
  m.def("list_gpus", [] {
    py::list out;
    for (const DeviceInfo& d : gpus()) out.append(device_dict(d));
    return out;
  });
  m.def("nvrtc_version", &nvrtc_toolchain_version);
  m.def(
      "select",
      [](const std::string& spec_or_kernel, const ProblemOverrides& overrides,
         const std::vector<std::string>& dbs, const std::string& device_name, const std::string& cc,
         int sm_count, bool strict) {
        SelectRequest request{spec_or_kernel, overrides, dbs, device_name, cc, sm_count, strict};
        SelectOutcome outcome;
        try {
          outcome = select_config(request);
        } catch (const runtime::RuntimeError& e) {
          throw Error(ErrorCode::kDb, e.what());
        }
        py::dict out;
        out["json"] = outcome.selection.to_json();
        out["warnings"] = outcome.warnings;
        return out;
      },
      py::arg("spec_or_kernel"), py::arg("overrides"), py::arg("dbs"), py::arg("device_name"),
      py::arg("cc"), py::arg("sm_count"), py::arg("strict"));
}
