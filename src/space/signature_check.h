#pragma once
// A spec's arguments checked against the parameters of the kernels its launches name, as the
// transformation engine parses them at the baseline's macros.
#include <string>
#include <vector>

#include "space/problem.h"

namespace gputune {

struct SignatureRules {
  // A buffer whose element type is not the one its pointer parameter points to is an error
  // (Python's arrays: the bytes are the array's) rather than a warning.
  bool element_types_must_match = false;
};

// Throws ArgumentMismatch (kSpec, at the launch's or the argument's place) where a launch passes
// more or fewer arguments than its kernel takes, or a buffer for a scalar parameter or a scalar
// for a pointer. Returns a warning for each type that differs (a scalar, a buffer's element), for
// an output passed as a pointer to const, and one where the kernel does not parse (nothing is
// checked then). A kernel the engine does not find by name, or finds overloaded, is not checked;
// nor is a parameter whose type is a template's.
std::vector<std::string> check_signatures(const Problem& problem, const SignatureRules& rules = {});

}  // namespace gputune
