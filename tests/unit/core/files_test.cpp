#include "core/files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gputune/error.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// analyze's folder was /tmp/gputune-analyze-<pid>: anyone could make it first.
TEST(Files, PrivateTemporaryFoldersAreNewAndOnlyTheirUsers) {
  const std::string a = make_private_temp_directory("gputune-files-test");
  const std::string b = make_private_temp_directory("gputune-files-test");
  EXPECT_NE(a, b);
  EXPECT_EQ(fs::status(a).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::path(a).filename().string().rfind("gputune-files-test-", 0), 0u);
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(Files, AFileIsReplacedWholeAndNoTemporaryIsLeft) {
  const fs::path dir = make_private_temp_directory("gputune-files-test");
  const fs::path file = dir / "out.txt";
  write_file_atomically(file.string(), "first");
  write_file_atomically(file.string(), "second, longer");
  EXPECT_EQ(contents(file), "second, longer");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_file_atomically((dir / "missing" / "x").string(), "x"), Error);
  std::ofstream(dir / "a.tmp") << "whole";
  sync_and_rename((dir / "a.tmp").string(), (dir / "a").string());
  EXPECT_EQ(contents(dir / "a"), "whole");
  EXPECT_FALSE(fs::exists(dir / "a.tmp"));
  fs::remove_all(dir);
}

TEST(Files, APrivateFolderOpenToOthersIsClosedAndALinkRefused) {
  const fs::path dir = make_private_temp_directory("gputune-files-test");
  fs::create_directory(dir / "open");
  fs::permissions(dir / "open", fs::perms::all);
  ensure_private_directory((dir / "open").string());
  EXPECT_EQ(fs::status(dir / "open").permissions() & fs::perms::all, fs::perms::owner_all);
  fs::create_directory_symlink(dir / "open", dir / "link");
  EXPECT_THROW(ensure_private_directory((dir / "link").string()), Error);
  ensure_private_directory((dir / "new").string());
  EXPECT_TRUE(fs::is_directory(dir / "new"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
