#include "compile/include_closure.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class IncludeClosureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_include_closure_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "one");
    fs::create_directories(dir_ / "two");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  // The request for `source`, searching one/ then two/.
  CompileRequest request(const std::string& source) const {
    CompileRequest r;
    r.source = source + "\n__global__ void k() {}\n";
    r.options = {"--include-path=" + (dir_ / "one").string(), "-I" + (dir_ / "two").string()};
    return r;
  }
  // Whether the closure of `source` is complete and changes when one/h.cuh changes.
  void expect_header_in_key(const std::string& source) {
    write("one/h.cuh", "#define V 1\n");
    const IncludeClosure before = include_closure(request(source));
    ASSERT_TRUE(before.complete) << before.why_incomplete;
    write("one/h.cuh", "#define V 2\n");
    EXPECT_NE(include_closure(request(source)).fingerprint, before.fingerprint)
        << "a change of one/h.cuh leaves the key of this source unchanged:\n"
        << source;
  }

  fs::path dir_;
};

// Each of these is an include of h.cuh to NVRTC's preprocessor; reading only lines that start
// with "#include" (as the cache did) missed them, and a changed header kept its old module.
TEST_F(IncludeClosureTest, DirectivesSpelledAnyWayThePreprocessorReadsThem) {
  expect_header_in_key("#include <h.cuh>");
  expect_header_in_key("  #  include \"h.cuh\"  // why");
  expect_header_in_key("#/* a comment */include <h.cuh>");
  expect_header_in_key("# /* a comment\n  over lines */ include <h.cuh>");
  expect_header_in_key("#include /* before the name */ <h.cuh>");
  expect_header_in_key("#\\\ninclude <h.cuh>");
  expect_header_in_key("#inc\\\r\nlude <h.cuh>");
  expect_header_in_key("%:include <h.cuh>");
  expect_header_in_key("#import <h.cuh>");
}

// __has_include's answer changes the code as much as an include: a header that appears later
// changes the key.
TEST_F(IncludeClosureTest, AHeaderLookedUpByHasIncludeIsPartOfTheKey) {
  const std::string source = "#if __has_include(<h.cuh>)\n#define HAVE 1\n#endif";
  fs::remove(dir_ / "one/h.cuh");
  const IncludeClosure absent = include_closure(request(source));
  ASSERT_TRUE(absent.complete) << absent.why_incomplete;
  write("one/h.cuh", "\n");
  EXPECT_NE(include_closure(request(source)).fingerprint, absent.fingerprint);
  expect_header_in_key("#if defined(__has_include) && __has_include_next ( \"h.cuh\" )\n#endif");
  // Asking whether __has_include exists looks nothing up.
  const IncludeClosure feature = include_closure(request("#ifdef __has_include\n#endif"));
  EXPECT_TRUE(feature.complete) << feature.why_incomplete;
  EXPECT_EQ(feature.fingerprint, "");
}

// #include_next in one/h.cuh reads two/h.cuh, which the first folder that holds the name hides.
TEST_F(IncludeClosureTest, IncludeNextReachesEveryFolderThatHoldsTheName) {
  write("one/h.cuh", "#include_next <h.cuh>\n");
  write("two/h.cuh", "#define V 1\n");
  const IncludeClosure before = include_closure(request("#include <h.cuh>"));
  ASSERT_TRUE(before.complete) << before.why_incomplete;
  write("two/h.cuh", "#define V 2\n");
  EXPECT_NE(include_closure(request("#include <h.cuh>")).fingerprint, before.fingerprint);
}

// What the cache cannot know is never cached; quotes and comments elsewhere do not hide or
// invent directives.
TEST_F(IncludeClosureTest, WhatCannotBeKnownIsIncompleteAndLiteralsHideNothing) {
  EXPECT_FALSE(include_closure(request("#define H <h.cuh>\n#include H")).complete);
  EXPECT_FALSE(include_closure(request("#if __has_include(H)\n#endif")).complete);
  EXPECT_FALSE(include_closure(request("#include \\\n  H")).complete);
  // A stray apostrophe (a digit separator) does not hide the next lines' directive; a "/*" in
  // a string opens no comment. (Only the text without comments sees these directives.)
  expect_header_in_key("int n = 1'000;\n# /*\n */ include <h.cuh>");
  expect_header_in_key("const char* s = \"/*\";\n# /*\n */ include <h.cuh>");
  const IncludeClosure text = include_closure(request("const char* s = \"#include <x>\";"));
  EXPECT_TRUE(text.complete);
  EXPECT_EQ(text.fingerprint, "");
}

// The shipped kernels stay cacheable: each one's closure is complete and holds gputune.cuh.
TEST_F(IncludeClosureTest, EveryShippedKernelIsCacheable) {
  const fs::path kernels = fs::path(test::source_dir()) / "kernels";
  for (const auto& entry : fs::directory_iterator(kernels)) {
    if (entry.path().extension() != ".cu") continue;
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    CompileRequest r;
    r.source = text.str();
    r.options = {"--include-path=" + kernels.string()};
    const IncludeClosure closure = include_closure(r);
    EXPECT_TRUE(closure.complete) << entry.path() << ": " << closure.why_incomplete;
    EXPECT_NE(closure.fingerprint.find("gputune.cuh"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace gputune
