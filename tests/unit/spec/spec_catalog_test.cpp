// Where shipped specs are found: beside the installed code first, GPUTUNE_SPACES before all.
#include "spec/spec_catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace gputune {
namespace {

namespace fs = std::filesystem;

class SpecCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gputune_catalog_" + std::to_string(getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path make_folder(const fs::path& relative) {
    fs::create_directories(root_ / relative);
    std::ofstream(root_ / relative / "mine.yaml") << "kernel: {source: k.cu, name: k}\n";
    return fs::weakly_canonical(root_ / relative);
  }
  fs::path root_;
};

TEST_F(SpecCatalogTest, AnInstalledProgramFindsShareGputuneSpaces) {
  fs::create_directories(root_ / "bin");
  const fs::path spaces = make_folder("share/gputune/spaces");
  const auto folders = spec_folders_beside((root_ / "bin").string());
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_EQ(folders[0], spaces.string());
}

TEST_F(SpecCatalogTest, ThePythonPackageFindsSpacesInsideItself) {
  const fs::path spaces = make_folder("site-packages/gputune/spaces");
  const auto folders = spec_folders_beside((root_ / "site-packages/gputune").string());
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_EQ(folders[0], spaces.string());
  EXPECT_TRUE(spec_folders_beside((root_ / "elsewhere").string()).empty());
  EXPECT_TRUE(spec_folders_beside("").empty());
}

TEST_F(SpecCatalogTest, CodeDirectoryIsWhereThisProgramLies) {
  EXPECT_EQ(fs::path(code_directory()), fs::canonical("/proc/self/exe").parent_path());
}

TEST_F(SpecCatalogTest, GputuneSpacesComesFirst) {
  const fs::path spaces = make_folder("mine");
  ::setenv("GPUTUNE_SPACES", spaces.c_str(), 1);
  const auto folders = spec_folders();
  const auto specs = shipped_specs();
  ::unsetenv("GPUTUNE_SPACES");
  ASSERT_FALSE(folders.empty());
  EXPECT_EQ(folders[0], spaces.string());
  EXPECT_NE(std::find(specs.begin(), specs.end(), (spaces / "mine.yaml").string()), specs.end());
}

}  // namespace
}  // namespace gputune
