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

}  // namespace
}  // namespace gputune
