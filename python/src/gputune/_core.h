#pragma once
// What the parts of gputune._core share: the module is one pybind11 module built from
// _core.cpp (searches, stored results, analyses), _core_spec.cpp (specs) and
// _core_commands.cpp (release, merge, import, export, plan).
#include <pybind11/pybind11.h>

#include <string>

#include "gputune/session.h"
#include "gputune/spec.h"

namespace gputune {

namespace py = pybind11;

// JSON text the core wrote (a record, a report), as Python values: one shape for both front ends.
py::object from_json(const std::string& text);

// What Python needs to lay out results: problem values, dimensions, buffer sizes.
py::dict problem_dict(const ProblemInfo& problem);
py::dict spec_info(const Spec& spec);

void bind_spec(py::module_& m);
void bind_commands(py::module_& m);

}  // namespace gputune
