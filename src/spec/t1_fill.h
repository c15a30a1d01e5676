#pragma once
// How a T1 argument (or reference argument) is filled: its FillType and what goes with it.
#include <nlohmann/json.hpp>

#include <string>

#include "gputune/spec.h"
#include "spec/t1_json_locations.h"

namespace gputune {

// Reads `item`'s FillType (default Random), FillValue, RandomSeed and DataSource, at JSON
// pointer `pointer` of the T1 file `t1_path`, into arg's fill: Constant, Random, Generator (an
// expression of the element index `i`), BinaryRaw (the file DataSource names, beside the T1
// file, of raw elements of arg->type in the machine's byte order), BinaryHDF (a dataset of an
// HDF5 file, through libgputune_hdf5.so: spec/t1_hdf5.h). Script is refused (no file ever runs
// code). `what` names the argument in errors, which are
// Error(kSpec) "file:line:column: ...", or Error(kIo) for a file that cannot be read.
void read_t1_fill(const nlohmann::json& item, const std::string& pointer,
                  const JsonLocations& where, const std::string& t1_path, const std::string& what,
                  ArgumentSpec* arg);

}  // namespace gputune
