#pragma once
#include <string>
#include <vector>

namespace gputune {

// Folders that hold shipped specs: $GPUTUNE_SPACES, then spaces/ beside or above the
// executable, then the source tree's spaces/.
std::vector<std::string> spec_folders();
std::vector<std::string> shipped_specs();  // every *.yaml in those folders, sorted by name
// A path that exists is returned as is; a bare name ("transpose") is looked up among the
// shipped specs. Throws Error(kIo) when neither is found, listing the shipped names.
std::string resolve_spec(const std::string& path_or_name);

}  // namespace gputune
