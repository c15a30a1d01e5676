#pragma once
// A T1 file's kernel arguments (KernelSpecification.Arguments) and the expected contents of its
// outputs (ReferenceArguments).
#include <nlohmann/json.hpp>

#include <string>

#include "gputune/spec.h"
#include "spec/spec_check.h"
#include "spec/t1_fields.h"

namespace gputune {

// The Arguments, in order, into spec->arguments: each one's type (bool, int8 .. uint64, float,
// double, or floatN/doubleN as N scalars), MemoryType (Scalar, Vector, or Symbol: the module's
// __constant__ variable of its Name), size, whether it is an output, and its fill (t1_fill; the
// files it names lie beside the T1 file `t1_path`). context->where gets the places the spec
// check names.
void read_t1_arguments(const nlohmann::json& kernel, const T1Fields& fields,
                       const std::string& t1_path, SpecCheckContext* context, Spec* spec);

// ReferenceArguments, after the Arguments: each names an output (TargetName, else Name) and
// fills its expected contents as an argument is filled, into that output's reference_fill:
// every variant, the baseline included, is checked against them instead of against the
// baseline's outputs.
void read_t1_references(const nlohmann::json& kernel, const T1Fields& fields,
                        const std::string& t1_path, Spec* spec);

}  // namespace gputune
