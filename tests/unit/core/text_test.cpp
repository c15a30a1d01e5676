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

TEST(Text, FindsTheFirstByteThatIsNotUtf8) {
  EXPECT_EQ(first_invalid_utf8(""), std::string::npos);
  EXPECT_EQ(first_invalid_utf8("plain"), std::string::npos);
  EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x9A\x80 \xF4\x8F\xBF\xBF"),
            std::string::npos);
  EXPECT_EQ(first_invalid_utf8("1\x97 2"), 1u);           // a continuation byte alone
  EXPECT_EQ(first_invalid_utf8("ab\xC3"), 2u);            // cut short
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0u);          // overlong
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1u);     // a surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xE2\x86x"), 0u);         // a bad third byte
  EXPECT_EQ(first_invalid_utf8("\xFF"), 0u);
}

}  // namespace
}  // namespace gputune
