#pragma once
// Kernel Tuner's results read and checked, before anything is stored (session/
// kernel_tuner_import.cpp stores them): its cache files (tune_kernel(..., cache=FILE)) and
// store_results output, as measurements of a spec's configs.
#include <set>
#include <string>
#include <vector>

#include "gputune/measurement.h"
#include "space/problem.h"

namespace gputune {

struct KernelTunerResults {
  std::string device_name;
  // Where the file says them (a top-level or "env" member compute_capability, as Kernel
  // Tuner's environment writes it: "90", "9.0", [9, 0]; device_properties'
  // MULTIPROCESSOR_COUNT or multiProcessorCount); 0 where it does not.
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::vector<Measurement> measurements;  // one per config, the first result of each
  int64_t ok = 0, failures = 0;
  int64_t outside = 0;              // results that are no config of the spec's space
  int64_t other_problems = 0;       // store_results entries of other problem sizes
  std::set<std::string> defaulted;  // spec parameters the file lacks
};

// Throws Error(kSpec) naming `file` and what is wrong: text that is not JSON (numbers beyond a
// double's range included), a field of the wrong type, results of another kernel (kernel_name)
// or problem (problem_size, compared with the problem's values as a set), a time that is not
// a positive finite number, a compute capability or SM count that is none, a parameter the spec
// lacks that Kernel Tuner varied, or no result that is a config of the space.
KernelTunerResults read_kernel_tuner(const std::string& text, const std::string& file,
                                     const Problem& problem);

}  // namespace gputune
