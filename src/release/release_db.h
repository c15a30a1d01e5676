#pragma once
// The release database file (core/release_format.h) written whole and read back whole.
#include <string>

#include "core/release_format.h"

namespace gputune {

// Writes `release` to a new file at `path` (which must not exist). Throws Error(kDb / kIo).
void write_release_db(const Release& release, const std::string& path);
// Reads a release database back. Throws Error(kDb) naming the file for one that is not a
// gputune release database or has a newer format.
Release read_release_db(const std::string& path);

}  // namespace gputune
