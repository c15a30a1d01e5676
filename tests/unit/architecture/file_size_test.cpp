// Small files with one concern: no source file of the library, its public headers or the Python
// module grows past kMaxLines (issue 28). A file that does is split by concern (a stage's
// class behind a header of its own, its sections in files named for them), never into halves.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxLines = 700;

size_t line_count(const fs::path& path) {
  std::ifstream in(path);
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(FileSize, NoSourceFileIsLongerThan700Lines) {
  std::vector<std::pair<size_t, std::string>> long_files;
  size_t files = 0;
  for (const char* folder : {"src", "include", "python/src"}) {
    const fs::path root = fs::path(test::source_dir()) / folder;
    ASSERT_TRUE(fs::exists(root)) << root;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() ||
          (extension != ".cpp" && extension != ".h" && extension != ".py")) {
        continue;
      }
      ++files;
      const size_t lines = line_count(entry.path());
      if (lines > kMaxLines) {
        long_files.emplace_back(lines, fs::relative(entry.path(), test::source_dir()).string());
      }
    }
  }
  EXPECT_GT(files, 300u) << "the scan found too few files to be working";
  std::sort(long_files.rbegin(), long_files.rend());
  std::string report;
  for (const auto& [lines, file] : long_files) {
    report += file + ": " + std::to_string(lines) + " lines\n";
  }
  EXPECT_EQ(report, "") << "longer than " << kMaxLines
                        << " lines; split each by concern (docs/ARCHITECTURE.md)";
}

TEST(FileSize, TheCountIsOfLines) {
  const fs::path file = fs::temp_directory_path() / "gputune_file_size_test.txt";
  {
    std::ofstream out(file);
    out << "one\ntwo\n\nfour";  // a last line without its newline counts too
  }
  EXPECT_EQ(line_count(file), 4u);
  fs::remove(file);
}

}  // namespace
}  // namespace gputune
