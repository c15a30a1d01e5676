#pragma once
#include <string>
#include <vector>

#include "gputune/spec.h"
#include "release/results_reader.h"

namespace gputune {

// The spec a kernel's results were measured with: the stored spec text, loaded with the spec
// loader from where a spec file of that kernel lies, so that its kernel source is found: a spec
// given with --spec whose kernel has the same name (one with the same spec text first), else the
// stored spec path (a relative one, as older databases kept it, also against the database's
// folder). Throws Error(kSpec) when the kernel source found there is not the one the
// results were measured with, or when no spec file can be found.
Spec load_measured_spec(const KernelIdentity& kernel, const MeasuredKernel& measured,
                        const std::vector<Spec>& given_specs);

}  // namespace gputune
