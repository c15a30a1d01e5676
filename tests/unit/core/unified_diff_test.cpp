#include "core/unified_diff.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

std::string numbered(int from, int to) {
  std::string text;
  for (int i = from; i <= to; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

TEST(UnifiedDiff, EqualTextsHaveNone) { EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), ""); }

TEST(UnifiedDiff, OneChangedLineWithItsContext) {
  const std::string before = numbered(1, 10);
  std::string after = before;
  after.replace(after.find("line 5\n"), 7, "line five\n");
  EXPECT_EQ(unified_diff(before, after, "k.cu", "k.cu (variant)"),
            "--- k.cu\n+++ k.cu (variant)\n"
            "@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n"
            " line 8\n");
}

TEST(UnifiedDiff, DistantChangesAreSeparateHunksAndInsertionsCount) {
  const std::string before = numbered(1, 20);
  std::string after = "first\n" + before;
  after.replace(after.find("line 18\n"), 8, "");
  EXPECT_EQ(unified_diff(before, after, "a", "b"),
            "--- a\n+++ b\n"
            "@@ -1,3 +1,4 @@\n+first\n line 1\n line 2\n line 3\n"
            "@@ -15,6 +16,5 @@\n line 15\n line 16\n line 17\n-line 18\n line 19\n line 20\n");
}

TEST(UnifiedDiff, NearChangesShareAHunk) {
  const std::string before = numbered(1, 12);
  std::string after = before;
  after.replace(after.find("line 3\n"), 7, "three\n");
  after.replace(after.find("line 9\n"), 7, "nine\n");
  const std::string diff = unified_diff(before, after, "a", "b");
  EXPECT_EQ(diff.substr(0, 38), "--- a\n+++ b\n@@ -1,12 +1,12 @@\n line 1\n") << diff;
  EXPECT_EQ(diff.find("\n@@", 20), std::string::npos) << diff;
}

TEST(UnifiedDiff, AMissingFinalNewlineIsSaid) {
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb", "x", "y"),
            "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
}

}  // namespace
}  // namespace gputune
