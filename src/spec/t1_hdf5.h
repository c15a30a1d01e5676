#pragma once
// A T1 BinaryHDF fill: one dataset of an HDF5 file, read through libgputune_hdf5.so (src/hdf5),
// which is opened at run time, the first time a file needs it; gputune does not link HDF5.
#include <functional>
#include <string>

#include "gputune/error.h"
#include "gputune/spec.h"

namespace gputune {

// The elements of `dataset` in the HDF5 file `path` (with dataset_optional, a file without it
// that holds one dataset gives that one), checked to be of `type`. Problems go to `fail`
// (which throws) with an error code and a message that says what was expected: a file that
// cannot be read, a dataset that is not there (naming those that are), another element type,
// or a library that cannot be loaded (naming it and how to install it).
using Hdf5Fail = std::function<void(ErrorCode code, const std::string& message)>;
SharedBytes read_hdf5_dataset(const std::string& path, const std::string& dataset,
                              bool dataset_optional, ScalarType type, const Hdf5Fail& fail);

// The library's file name and where it is looked for, in order: $GPUTUNE_HDF5_LIBRARY alone
// when set; else beside the program (or Python module) that holds gputune's code, its parent
// folder and ../lib, then the system's search path.
extern const char* const kHdf5LibraryName;

}  // namespace gputune
