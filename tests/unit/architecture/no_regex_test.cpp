// No std::regex in gputune's code: libstdc++'s recurses once per character of the text it
// matches, so a long enough input (30,000 spaces in a T1 file, a 60 KB .npy header, a long
// --set) overflowed the stack (issue 27). The code scans text by hand (core/text.h); tests may
// still use std::regex on gputune's own output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(NoRegex, NoSourceUsesStdRegex) {
  std::string found;
  size_t files = 0;
  for (const char* folder : {"src", "include", "python/src"}) {
    const fs::path root = fs::path(test::source_dir()) / folder;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string extension = entry.path().extension().string();
      if (extension != ".cpp" && extension != ".h") continue;
      ++files;
      std::ifstream in(entry.path());
      int number = 0;
      for (std::string line; std::getline(in, line);) {
        ++number;
        const std::string code = line.substr(0, line.find("//"));  // comments may name it
        if (code.find("<regex>") != std::string::npos ||
            code.find("std::regex") != std::string::npos) {
          found += fs::relative(entry.path(), test::source_dir()).string() + ":" +
                   std::to_string(number) + ": " + line + "\n";
        }
      }
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_EQ(found, "") << "std::regex in gputune's code; scan by hand instead (core/text.h)";
}

}  // namespace
}  // namespace gputune
