#pragma once
// An output's expected contents, read from a file a spec names (check: reference:).
#include <string>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// The elements of `path`: a .npy file (NumPy's format, C order, its dtype `type` in either
// byte order) or, for any other name, raw bytes in the machine's byte order. The element count
// is checked against the output when the buffers are made. Throws Error(kIo) when the file
// cannot be read, Error(kSpec) when a .npy header is malformed or names another dtype.
SharedBytes read_reference_file(const std::string& path, ScalarType type);
// The same from the file's bytes; `path` names it in errors and decides .npy or raw.
SharedBytes reference_from_bytes(std::vector<unsigned char> file, const std::string& path,
                                 ScalarType type);

}  // namespace gputune
