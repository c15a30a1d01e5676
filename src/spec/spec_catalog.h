#pragma once
#include <string>
#include <vector>

namespace gputune {

// Folders that hold shipped specs, first found first: $GPUTUNE_SPACES, then those beside the
// code (spec_folders_beside), then, in a development build, the source tree's spaces/.
std::vector<std::string> spec_folders();
// Where an installation keeps its specs, for code (a program, the Python module) that lies in
// `code_dir`: <code_dir>/spaces (the Python package), <code_dir>/../share/gputune/spaces
// (<prefix>/bin/gputune), <code_dir>/../spaces. Only folders that exist.
std::vector<std::string> spec_folders_beside(const std::string& code_dir);
// The folder of the file (program or shared library) this code was loaded from.
std::string code_directory();
// The folder that holds spaces/ and kernels/ for the code as installed (or the source tree in
// a development build); recordings name their spec relative to it. Empty when none is found.
std::string shipped_data_root();
std::vector<std::string> shipped_specs();  // every *.yaml in those folders, sorted by name
// A path that exists is returned as is; a bare name ("transpose") is looked up among the
// shipped specs. Throws Error(kIo) when neither is found, listing the shipped names.
std::string resolve_spec(const std::string& path_or_name);

}  // namespace gputune
