#pragma once
// Files that a crash or another user cannot leave half-written or swap: written beside, synced
// and renamed into place; folders made private to the user.
#include <string>

namespace gputune {

// Writes `bytes` to a new temporary file beside `path`, syncs it to disk, renames it over
// `path` and syncs the folder, so that after a crash `path` holds the old bytes or the new,
// whole. Throws Error(kIo) naming `path`.
void write_file_atomically(const std::string& path, const std::string& bytes);
// Syncs a file already written (a database written by SQLite) and then renames it over `to`,
// syncing the folder. Throws Error(kIo) naming `to`; `from` is removed on failure.
void sync_and_rename(const std::string& from, const std::string& to);

// A new folder that only this user can enter: mkdtemp under the temporary folder, named
// "<prefix>-XXXXXX". Throws Error(kIo).
std::string make_private_temp_directory(const std::string& prefix);

// `path` as a folder of this user that no one else may write or enter: created (with mode
// 0700) where missing, refused where it is a link, another user's, or open to others.
// Throws Error(kIo) saying which and what to do.
void ensure_private_directory(const std::string& path);

}  // namespace gputune
