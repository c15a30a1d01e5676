#include "gputune/spec.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

TEST(ParseBudget, CountsAndTimes) {
  int64_t evaluations = -1;
  double seconds = -1;
  ASSERT_TRUE(parse_budget("100", &evaluations, &seconds));
  EXPECT_EQ(evaluations, 100);
  EXPECT_EQ(seconds, 0);
  ASSERT_TRUE(parse_budget("90s", &evaluations, &seconds));
  EXPECT_EQ(evaluations, 0);
  EXPECT_DOUBLE_EQ(seconds, 90);
  ASSERT_TRUE(parse_budget("1.5m", &evaluations, &seconds));
  EXPECT_DOUBLE_EQ(seconds, 90);
  ASSERT_TRUE(parse_budget("2h", &evaluations, &seconds));
  EXPECT_DOUBLE_EQ(seconds, 7200);
}

TEST(ParseBudget, RefusesWhatIsNeitherCountNorTime) {
  int64_t evaluations;
  double seconds;
  for (const char* bad : {"", "0", "-3", "1.5", "10 minutes", "3x", "s", "nan", "1e3"}) {
    EXPECT_FALSE(parse_budget(bad, &evaluations, &seconds)) << bad;
  }
}

TEST(SourceLocation, AFileLineAndColumnOrAnOriginAlone) {
  EXPECT_EQ((SourceLocation{"a.yaml", 3, 9}).str(), "a.yaml:3:9");
  EXPECT_EQ((SourceLocation{"a.yaml", 3, 9}).message("bad"), "a.yaml:3:9: bad");
  EXPECT_EQ((SourceLocation{"tune(): grid[1]"}).str(), "tune(): grid[1]");
  EXPECT_EQ((SourceLocation{"tune(): grid[1]"}).message("bad"), "tune(): grid[1]: bad");
  EXPECT_EQ(SourceLocation{}.str(), "");
  EXPECT_EQ(SourceLocation{}.message("bad"), "bad");
}

}  // namespace
}  // namespace gputune
