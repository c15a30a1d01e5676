#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace gputune {

// The file system type of a path's folder, as statfs(2) reports it (f_type); 0 when unknown.
int64_t file_system_magic(const std::string& path);

// The name of a network or cluster file system from its statfs magic number (NFS, Lustre,
// GPFS, BeeGFS, CIFS/SMB, CephFS, ...), or "" for a local one.
std::string network_file_system_name(int64_t magic);

// A warning to show when a database that will be written lies on a network file system, where
// SQLite's locking is unreliable with several writers; "" when it does not. `magic_of` reads
// the file system type; tests pass their own.
std::string network_database_warning(
    const std::string& db_path,
    const std::function<int64_t(const std::string&)>& magic_of = file_system_magic);

}  // namespace gputune
