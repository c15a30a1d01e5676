#include "core/text.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

TEST(Text, TrimAndJoin) {
  EXPECT_EQ(trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(trim("  "), "");
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({}), "");
}

TEST(Text, Identifiers) {
  EXPECT_TRUE(is_identifier("_TILE2"));
  EXPECT_FALSE(is_identifier("2PAD"));
  EXPECT_FALSE(is_identifier("a-b"));
  EXPECT_FALSE(is_identifier(""));
}

TEST(Text, SuggestionIgnoresCaseAndFarWords) {
  EXPECT_EQ(edit_distance("Launch", "lanch"), 1u);
  EXPECT_EQ(suggestion("lanch", {"kernel", "launch"}), " (did you mean 'launch'?)");
  EXPECT_EQ(suggestion("xyzzy", {"kernel", "launch"}), "");
  EXPECT_EQ(suggestion("x", {}), "");
}

TEST(Text, SkipsSpacesDigitsAndIdentifierCharacters) {
  EXPECT_EQ(skip_spaces(" \t\n x", 0), 4u);
  EXPECT_EQ(skip_spaces("ab", 5), 2u);
  EXPECT_EQ(skip_digits("12a", 0), 2u);
  EXPECT_EQ(skip_identifier_chars("a_1+b", 0), 3u);
}

TEST(Text, SplitsAssignmentsButNotCommasInsideExpressions) {
  EXPECT_EQ(split_assignments("m=4096,n=2*m"), (std::vector<std::string>{"m=4096", "n=2*m"}));
  EXPECT_EQ(split_assignments("n=max(a, b)"), (std::vector<std::string>{"n=max(a, b)"}));
  EXPECT_EQ(split_assignments("n=a, b==1"), (std::vector<std::string>{"n=a, b==1"}));
  EXPECT_EQ(split_assignments("n=1, _m = 2"), (std::vector<std::string>{"n=1", " _m = 2"}));
}

// std::regex recursed once per character here and overflowed the stack.
TEST(Text, SplitsAssignmentsOfAnyLength) {
  const std::string name(200000, 'a');
  const std::vector<std::string> parts = split_assignments("n=1," + name + "=2,m=" + name);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], name + "=2");
  EXPECT_EQ(split_assignments("n=1," + std::string(200000, ' ') + "x").size(), 1u);
}

}  // namespace
}  // namespace gputune
