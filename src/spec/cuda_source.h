#pragma once
#include <set>
#include <string>
#include <vector>

namespace gputune {

// Names of every __global__ function in a source, found textually: the identifier before the
// first '(' after __global__ that is not an attribute such as __launch_bounds__(...).
std::vector<std::string> global_functions(const std::string& source);

// Names of every __constant__ variable a source declares, found textually: each declarator's
// identifier in `__constant__ float filter[17 * 17], bias = 1;` ("filter", "bias").
std::vector<std::string> constant_symbols(const std::string& source);

// The text of the headers a source includes with quotes, recursively, where they are found
// beside the file that includes them (as NVRTC finds them with --include-path): a kernel file may
// launch kernels that a header it includes defines. `seen` holds the files already read.
std::string quoted_includes(const std::string& source, const std::string& folder,
                            std::set<std::string>* seen);

}  // namespace gputune
