#include "store/file_system.h"

#include <sys/vfs.h>

#include <filesystem>

namespace gputune {

int64_t file_system_magic(const std::string& path) {
  // A database not created yet lives in its folder's file system.
  std::filesystem::path probe = path.empty() ? "." : path;
  std::error_code error;
  while (!std::filesystem::exists(probe, error) && probe.has_parent_path() &&
         probe.parent_path() != probe) {
    probe = probe.parent_path();
  }
  if (!std::filesystem::exists(probe, error)) probe = ".";
  struct statfs info {};
  if (statfs(probe.c_str(), &info) != 0) return 0;
  return static_cast<int64_t>(static_cast<uint32_t>(info.f_type));
}

std::string network_file_system_name(int64_t magic) {
  // From statfs(2) and the file systems' own sources.
  switch (static_cast<uint32_t>(magic)) {
    case 0x6969:
      return "NFS";
    case 0x0BD00BD0:
      return "Lustre";
    case 0x47504653:
      return "GPFS";
    case 0x19830326:
      return "BeeGFS";
    case 0xFF534D42:
      return "CIFS";
    case 0xFE534D42:
      return "SMB2";
    case 0x517B:
      return "SMB";
    case 0x00C36400:
      return "CephFS";
    case 0x01021997:
      return "9P";
    case 0x5346414F:
      return "AFS";
    case 0x013111A8:
      return "IBRIX";
    case 0x65735546:
      return "FUSE";  // sshfs, s3fs, gcsfuse...: locking depends on what is behind it
    default:
      return "";
  }
}

std::string network_database_warning(const std::string& db_path,
                                     const std::function<int64_t(const std::string&)>& magic_of) {
  if (db_path.empty() || db_path == ":memory:") return "";
  const std::string name = network_file_system_name(magic_of(db_path));
  if (name.empty()) return "";
  return db_path + " is on " + name +
         ", a network file system: SQLite's locks are not reliable there, and several writers "
         "can corrupt the database. Give each job a --db on local disk (such as $TMPDIR) and "
         "merge the files afterwards with gputune merge (docs/cluster.md).";
}

}  // namespace gputune
