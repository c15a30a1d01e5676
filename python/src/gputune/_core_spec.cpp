// gputune._core's Spec: specs opened from files or text, and the Spec that Python's tune()
// builds from plain data (no YAML, no file), with numpy arrays as input data and references.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gputune/_core.h"
#include "gputune/error.h"
#include "gputune/session.h"
#include "gputune/spec.h"

namespace gputune {
namespace {

py::object value_object(const Value& v) {
  if (v.is_integer()) return py::int_(static_cast<int64_t>(v.as_number()));
  if (v.is_number()) return py::float_(v.as_number());
  return py::str(v.as_symbol());
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

}  // namespace

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
  out["variants_estimated"] = problem.variants_estimated;
  out["baseline_index"] = problem.baseline_index;
  py::list buffers;
  for (const BufferInfo& b : problem.buffers)
    buffers.append(py::make_tuple(b.name, b.type, b.count));
  out["buffers"] = buffers;
  return out;
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

void bind_spec(py::module_& m) {
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
}

}  // namespace gputune
