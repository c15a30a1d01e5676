// gputune._core: the session facade (gputune/session.h) as the pure-Python layer sees it.
// Plain values cross the boundary (dicts, lists, strings); result records cross as the JSON
// text `gputune search --json` writes, so both front ends show the same fields. pandas and
// plots live in Python.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/analysis.h"
#include "gputune/error.h"
#include "gputune/host_check.h"
#include "gputune/results.h"
#include "gputune/select.h"
#include "gputune/session.h"
#include "gputune/spec.h"
#include "gputune/transforms.h"

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

// A result record: the JSON text gputune search --json writes for a variant, as a dict.
py::object record(const Measurement& m) {
  return py::module_::import("json").attr("loads")(measurement_record(m));
}

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

py::object value_object(const Value& v) {
  if (v.is_integer()) return py::int_(static_cast<int64_t>(v.as_number()));
  if (v.is_number()) return py::float_(v.as_number());
  return py::str(v.as_symbol());
}

// What Python needs to lay out results: problem values, dimensions, buffer sizes.
py::dict problem_dict(const ProblemInfo& problem) {
  py::dict out;
  out["title"] = problem.title;
  out["problem_json"] = problem.problem_json;
  py::list values;
  for (const auto& [name, value] : problem.values) values.append(py::make_tuple(name, value));
  out["problem_values"] = values;
  py::list dimensions;
  for (const DimensionInfo& d : problem.dimensions) {
    py::list dvalues;
    for (const Value& v : d.values) dvalues.append(value_object(v));
    dimensions.append(py::make_tuple(d.name, dvalues, d.is_transform));
  }
  out["dimensions"] = dimensions;
  out["size"] = problem.size;
  out["variants"] = problem.variants;
  out["baseline_index"] = problem.baseline_index;
  py::list buffers;
  for (const BufferInfo& b : problem.buffers)
    buffers.append(py::make_tuple(b.name, b.type, b.count));
  out["buffers"] = buffers;
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

std::string python_type(const py::handle& object) {
  return py::str(py::type::of(object).attr("__name__"));
}

// A Spec from plain Python data, as tune() gives it: no YAML and no file. Each part keeps the
// name it has in tune()'s arguments, so that check_spec's messages name where a value came
// from ("tune(): grid[1]: ...").
class SpecParts {
 public:
  explicit SpecParts(const py::dict& parts) : parts_(parts) {
    origin_ = parts_.contains("origin") ? parts_["origin"].cast<std::string>() : "tune()";
    for (const auto& item : parts_) {
      const std::string key = py::str(item.first);
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        throw Error(ErrorCode::kUsage, origin_ + ": unknown spec part '" + key + "'");
      }
    }
  }

  Spec build() const {
    Spec spec;
    spec.path = required<std::string>("path");
    spec.text = required<std::string>("text");
    spec.description = optional<std::string>("description", "");
    spec.kernel_source = required<std::string>("source");
    spec.kernel_path = optional<std::string>("kernel_path", spec.path);
    spec.kernel_name = {required<std::string>("name"), where("name")};
    spec.compile_options = optional<std::vector<std::string>>("options", {});
    spec.parameters_as_macros = optional<bool>("macros", true);
    for (const auto& [name, text] : pairs<std::string>("problem")) {
      spec.problem.push_back({name, {text, where("problem", name)}});
    }
    for (const auto& [name, text] : pairs<std::string>("defines")) {
      spec.defines.push_back({name, {text, where("defines", name)}});
    }
    for (const py::handle& item : list("args")) spec.arguments.push_back(argument(item));
    spec.launches.push_back(launch(spec));
    spec.launches_where = where();
    for (const bool transforms : {false, true}) {
      const char* key = transforms ? "transforms" : "params";
      for (const auto& [name, values] : pairs<py::list>(key)) {
        ParameterSpec parameter;
        parameter.name = name;
        parameter.where = where(key, name);
        parameter.is_transform = transforms;
        for (const py::handle& v : values) {
          parameter.values.push_back(value(v, key + std::string("['") + name + "']"));
        }
        (transforms ? spec.transforms : spec.parameters).push_back(std::move(parameter));
      }
    }
    const std::vector<std::string> constraints =
        optional<std::vector<std::string>>("constraints", {});
    for (size_t i = 0; i < constraints.size(); ++i) {
      spec.constraints.push_back({constraints[i], where("constraints[" + std::to_string(i) + "]")});
    }
    spec.constraints_where = where("constraints");
    for (const auto& [name, v] : pairs<py::object>("baseline")) {
      spec.baseline_where = where("baseline");
      spec.baseline.push_back({name, value(v, "baseline['" + name + "']")});
    }
    spec.rtol = optional<double>("rtol", spec.rtol);
    spec.atol = optional<double>("atol", spec.atol);
    if (has("check")) {
      const std::string check = required<std::string>("check");
      if (check != "none") {
        throw Error(ErrorCode::kUsage,
                    where("check").message("'" + check + "' is not a check; expected \"none\""));
      }
      spec.check_outputs = false;
    }
    if (has("bytes")) spec.bytes = ExprText{required<std::string>("bytes"), where("bytes")};
    if (has("flops")) spec.flops = ExprText{required<std::string>("flops"), where("flops")};
    check_spec(spec);
    return spec;
  }

 private:
  static constexpr const char* kKeys[] = {
      "origin",   "path",    "text",         "description", "source",     "kernel_path",
      "name",     "options", "macros",       "defines",     "problem",    "args",
      "block",    "grid",    "shared_bytes", "params",      "transforms", "constraints",
      "baseline", "rtol",    "atol",         "bytes",       "flops",      "check"};

  SourceLocation where(const std::string& key = "") const {
    return {key.empty() ? origin_ : origin_ + ": " + key};
  }
  SourceLocation where(const std::string& key, const std::string& name) const {
    return where(key + "['" + name + "']");
  }
  bool has(const char* key) const { return parts_.contains(key) && !parts_[key].is_none(); }
  template <typename T>
  T required(const char* key) const {
    if (!has(key)) {
      throw Error(ErrorCode::kUsage, origin_ + ": the spec part '" + key + "' is missing");
    }
    return cast<T>(parts_[key], key);
  }
  template <typename T>
  T optional(const char* key, T otherwise) const {
    return has(key) ? cast<T>(parts_[key], key) : otherwise;
  }
  template <typename T>
  T cast(const py::handle& object, const std::string& what) const {
    try {
      return object.cast<T>();
    } catch (const py::cast_error&) {
      throw Error(ErrorCode::kUsage, where(what).message("unexpected type " + python_type(object)));
    }
  }
  py::list list(const char* key) const { return optional<py::list>(key, py::list()); }
  // [(name, x), ...]: in the order given, which is the search space's.
  template <typename T>
  std::vector<std::pair<std::string, T>> pairs(const char* key) const {
    std::vector<std::pair<std::string, T>> out;
    for (const py::handle& item : list(key)) {
      const auto pair = cast<std::pair<std::string, py::object>>(item, key);
      out.push_back(
          {pair.first, cast<T>(pair.second, key + std::string("['") + pair.first + "']")});
    }
    return out;
  }

  // A parameter or baseline value: a bool is 0 or 1, a str a symbol even if it looks like a
  // number (as a quoted YAML scalar).
  Value value(const py::handle& v, const std::string& key) const {
    if (py::isinstance<py::bool_>(v)) return int64_t{v.cast<bool>() ? 1 : 0};
    if (py::isinstance<py::int_>(v)) return cast<int64_t>(v, key);
    if (py::isinstance<py::float_>(v)) return v.cast<double>();
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    throw Error(ErrorCode::kSpec,
                where(key).message("a value must be a number or a name, got " + python_type(v)));
  }

  // {"name", "type", "count" (a buffer) or "value" (a scalar), "output", "constant", "symbol"}.
  ArgumentSpec argument(const py::handle& item) const {
    const auto fields = cast<std::map<std::string, py::object>>(item, "args");
    const auto field = [&](const std::string& key) {
      const auto it = fields.find(key);
      return it == fields.end() ? py::object(py::none()) : it->second;
    };
    ArgumentSpec arg;
    arg.name = cast<std::string>(field("name"), "args");
    arg.where = where("args", arg.name);
    const std::string key = "args['" + arg.name + "']";
    const std::string type = cast<std::string>(field("type"), key);
    if (!parse_type(type, &arg.type)) {
      throw Error(ErrorCode::kSpec, arg.where.message("unknown type '" + type + "'"));
    }
    arg.is_buffer = !field("count").is_none();
    ExprText& expr = arg.is_buffer ? arg.count : arg.value;
    expr = {cast<std::string>(field(arg.is_buffer ? "count" : "value"), key), arg.where};
    arg.output = !field("output").is_none() && cast<bool>(field("output"), key);
    arg.constant = !field("constant").is_none() && cast<bool>(field("constant"), key);
    if (!field("symbol").is_none()) arg.symbol = cast<std::string>(field("symbol"), key);
    return arg;
  }

  LaunchSpec launch(const Spec& spec) const {
    LaunchSpec launch;
    launch.kernel_name = spec.kernel_name;
    launch.where = where();
    for (size_t a = 0; a < spec.arguments.size(); ++a) launch.arguments.push_back(a);
    for (const bool block : {true, false}) {
      const char* key = block ? "block" : "grid";
      const auto dims = optional<std::vector<std::string>>(key, {});
      for (size_t i = 0; i < dims.size(); ++i) {
        (block ? launch.block : launch.grid)
            .push_back({dims[i], where(key + ("[" + std::to_string(i) + "]"))});
      }
    }
    if (has("shared_bytes")) {
      launch.dynamic_shared_bytes =
          ExprText{required<std::string>("shared_bytes"), where("shared_bytes")};
    }
    return launch;
  }

  const py::dict& parts_;
  std::string origin_;
};

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
  py::list defines;
  for (const auto& [name, expr] : spec.defines) defines.append(py::make_tuple(name, expr.text));
  out["defines"] = defines;
  py::list arguments;
  for (const ArgumentSpec& a : spec.arguments) {
    py::dict d;
    d["name"] = a.name;
    d["type"] = type_name(a.type);
    d["is_buffer"] = a.is_buffer;
    d["output"] = a.output;
    d["constant"] = a.constant;
    if (a.constant) d["symbol"] = a.constant_symbol();
    d["count"] = a.count.text;
    d["value"] = a.value.text;
    d["has_data"] = static_cast<bool>(a.data);
    d["has_reference"] = static_cast<bool>(a.reference);
    arguments.append(d);
  }
  out["arguments"] = arguments;
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

// search(spec, ...): spec is a Spec (tune()), a file or a shipped spec's name, or None (the
// replay's own). Options mean what `gputune search`'s do; the facade checks them.
py::dict search_from_python(const py::object& spec, const ProblemOverrides& overrides,
                            std::optional<std::string> db, const std::string& strategy,
                            const std::string& budget, std::optional<uint64_t> seed, bool force,
                            bool use_prior, int device, const std::string& devices, size_t jobs,
                            const std::string& cache_dir, bool use_cache, double timeout_floor,
                            double timeout_factor, bool warm_cache,
                            std::optional<double> max_seconds, bool fast,
                            const std::string& sampling, bool compile_only, const std::string& arch,
                            const std::string& replay, const std::string& shard, bool mpi,
                            bool replay_real_time, const std::string& profiler, py::object progress,
                            py::object check) {
  SearchRequest request;
  if (py::isinstance<Spec>(spec)) {
    request.inline_spec = spec.cast<Spec>();
  } else if (!spec.is_none()) {
    request.spec = spec.cast<std::string>();
  }
  request.overrides = overrides;
  request.db = std::move(db);
  request.strategy = strategy;
  request.budget = budget;
  request.seed = seed;
  request.force = force;
  request.use_prior = use_prior;
  request.device = device;
  request.devices = devices;
  request.jobs = jobs;
  request.cache_dir = cache_dir;
  request.use_cache = use_cache;
  request.timeout_floor_s = timeout_floor;
  request.timeout_factor = timeout_factor;
  request.warm_cache = warm_cache;
  request.max_seconds = max_seconds;
  request.fast = fast;
  request.sampling = sampling;
  request.compile_only = compile_only;
  request.arch = arch;
  request.replay = replay;
  request.shard = shard;
  request.mpi = mpi;
  request.replay_real_time = replay_real_time;
  request.profiler = profiler;

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

py::dict summary_dict(const WorkloadInfo& w) {
  py::dict out;
  out["id"] = w.id;
  out["spec_path"] = w.spec_path;
  out["spec_hash"] = w.spec_hash;
  out["source_hash"] = w.source_hash;
  out["kernel_name"] = w.kernel_name;
  out["problem_json"] = w.problem_json;
  out["device"] = device_dict(w.device);
  out["nvrtc_version"] = w.nvrtc_version;
  out["attempts"] = w.attempts;
  out["ok"] = w.ok;
  out["best"] = w.best ? record(*w.best) : py::object(py::none());
  out["baseline"] = w.baseline ? record(*w.baseline) : py::object(py::none());
  out["speedup"] = w.speedup();
  out["baseline_index"] = w.baseline_index;
  out["created_at"] = w.created_at;
  return out;
}

py::list workloads(const std::string& db, const std::optional<Spec>& spec) {
  py::list out;
  for (const WorkloadInfo& w : stored_workloads(db, spec)) out.append(summary_dict(w));
  return out;
}

// A stored workload as search() returns it, without running anything. With the spec, the
// rows get its metrics (GB/s, GFLOP/s).
py::dict load_workload(const std::string& db, int64_t workload, const std::optional<Spec>& spec) {
  StoredWorkload stored = load_stored(db, workload, spec);
  py::dict out;
  out["db"] = db;
  out["workload"] = workload;
  out["summary"] = summary_dict(stored.summary);
  out["device"] = device_dict(stored.summary.device);
  out["copy_bandwidth_gbs"] = stored.copy_bandwidth_gbs;
  out["report"] = stored.report.json(ResultReport::kAllRows);
  py::list history;
  for (const AttemptInfo& a : stored.history) {
    py::object row = record(a.measurement);
    row["id"] = a.id;
    row["created_at"] = a.created_at;
    history.append(row);
  }
  out["history"] = history;
  // The parameters in the spec's order (records' configs are sorted by name).
  py::list parameters;
  if (!stored.history.empty()) {
    py::dict config =
        py::module_::import("json").attr("loads")(stored.history.front().measurement.config);
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
  out["config"] = py::module_::import("json").attr("loads")(a.config.empty() ? "{}" : a.config);
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
      .def("problem", [](const Spec& s) { return problem_dict(problem_info(s)); })
      .def("set_data", &set_data, py::arg("name"), py::arg("buffer"))
      .def("set_reference", &set_reference, py::arg("name"), py::arg("buffer"))
      .def_property_readonly("path", [](const Spec& s) { return s.path; })
      .def_property_readonly("text", [](const Spec& s) { return s.text; })
      .def_property_readonly("warnings", [](const Spec& s) { return s.warnings; });

  m.def("open_spec", &open_spec, py::arg("path_or_name"),
        py::arg("overrides") = ProblemOverrides{});
  m.def("parse_spec", &spec_from_text, py::arg("text"), py::arg("path"),
        py::arg("overrides") = ProblemOverrides{});
  m.def(
      "build_spec", [](const py::dict& parts) { return SpecParts(parts).build(); },
      py::arg("parts"));
  SearchRequest defaults;  // the command line's defaults, in one place
  m.def("search", &search_from_python, py::arg("spec") = py::none(),
        py::arg("overrides") = ProblemOverrides{}, py::arg("db") = py::none(),
        py::arg("strategy") = defaults.strategy, py::arg("budget") = defaults.budget,
        py::arg("seed") = py::none(), py::arg("force") = defaults.force,
        py::arg("use_prior") = defaults.use_prior, py::arg("device") = defaults.device,
        py::arg("devices") = defaults.devices, py::arg("jobs") = defaults.jobs,
        py::arg("cache_dir") = defaults.cache_dir, py::arg("use_cache") = defaults.use_cache,
        py::arg("timeout_floor") = defaults.timeout_floor_s,
        py::arg("timeout_factor") = defaults.timeout_factor,
        py::arg("warm_cache") = defaults.warm_cache, py::arg("max_seconds") = py::none(),
        py::arg("fast") = defaults.fast, py::arg("sampling") = defaults.sampling,
        py::arg("compile_only") = defaults.compile_only, py::arg("arch") = defaults.arch,
        py::arg("replay") = defaults.replay, py::arg("shard") = defaults.shard,
        py::arg("mpi") = defaults.mpi, py::arg("replay_real_time") = defaults.replay_real_time,
        py::arg("profiler") = defaults.profiler, py::arg("progress") = py::none(),
        py::arg("check") = py::none());
  m.def("_call_check", &call_check, py::arg("function"), py::arg("outputs"), py::arg("inputs"),
        py::arg("config") = "{}");
  m.def("workloads", &workloads, py::arg("db"), py::arg("spec") = py::none());
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
  m.def("shipped_specs", &shipped_spec_paths);
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
