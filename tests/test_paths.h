#pragma once
#include <string>

namespace gputune::test {

// The checkout lives at another path on the GPU machine, so the environment wins over the
// path baked in at build time (only test_paths.cpp sees that path, so that every test file
// compiles the same in every checkout).
std::string source_dir();
std::string gputune_binary();

}  // namespace gputune::test
