#include "store/file_system.h"

#include <gtest/gtest.h>

#include <string>

namespace gputune {
namespace {

TEST(FileSystem, NamesNetworkFileSystemsByTheirMagic) {
  EXPECT_EQ(network_file_system_name(0x6969), "NFS");
  EXPECT_EQ(network_file_system_name(0x0BD00BD0), "Lustre");
  EXPECT_EQ(network_file_system_name(0x47504653), "GPFS");
  EXPECT_EQ(network_file_system_name(0x19830326), "BeeGFS");
  EXPECT_EQ(network_file_system_name(0xFF534D42), "CIFS");
  EXPECT_EQ(network_file_system_name(0xFE534D42), "SMB2");
  EXPECT_EQ(network_file_system_name(0x00C36400), "CephFS");
  EXPECT_EQ(network_file_system_name(0xEF53), "");      // ext4
  EXPECT_EQ(network_file_system_name(0x58465342), "");  // XFS
  EXPECT_EQ(network_file_system_name(0x01021994), "");  // tmpfs
}

TEST(FileSystem, WarnsForADatabaseOnLustreWithTheFix) {
  const auto lustre = [](const std::string&) -> int64_t { return 0x0BD00BD0; };
  const std::string warning = network_database_warning("/scratch/me/results.db", lustre);
  EXPECT_NE(warning.find("/scratch/me/results.db"), std::string::npos) << warning;
  EXPECT_NE(warning.find("Lustre"), std::string::npos) << warning;
  EXPECT_NE(warning.find("gputune merge"), std::string::npos) << warning;
}

TEST(FileSystem, SaysNothingForLocalDisksOrMemory) {
  const auto ext4 = [](const std::string&) -> int64_t { return 0xEF53; };
  const auto nfs = [](const std::string&) -> int64_t { return 0x6969; };
  EXPECT_EQ(network_database_warning("results.db", ext4), "");
  EXPECT_EQ(network_database_warning(":memory:", nfs), "");
  EXPECT_EQ(network_database_warning("", nfs), "");
}

TEST(FileSystem, ReadsTheFolderOfAFileNotCreatedYet) {
  EXPECT_NE(file_system_magic("/tmp/gputune-no-such-folder/x/results.db"), 0);
  EXPECT_NE(file_system_magic("results.db"), 0);
}

}  // namespace
}  // namespace gputune
