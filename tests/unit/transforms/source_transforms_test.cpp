#include "transforms/source_transforms.h"

#include <gtest/gtest.h>

namespace gputune {
namespace {

TEST(SourceTransforms, NamesWithAndWithoutTargets) {
  EXPECT_EQ(reject_transform_name("thread_merge_y"), "");
  EXPECT_EQ(reject_transform_name("unroll(k_loop)"), "");
  EXPECT_EQ(reject_transform_name("unroll(42)"), "");
  EXPECT_EQ(reject_transform_name("pad_shared(tile)"), "");
  EXPECT_EQ(reject_transform_name("block_order"), "");
  EXPECT_EQ(reject_transform_name("pad_shared(12)"),
            "transform 'pad_shared(12)' does not name its target as expected; expected "
            "pad_shared(<a 2-D __shared__ array>), e.g. pad_shared(tile)");
  EXPECT_EQ(reject_transform_name("thread_merge_y(a)"),
            "transform 'thread_merge_y' takes no target, got 'thread_merge_y(a)'; expected "
            "'thread_merge_y' alone");
  EXPECT_NE(reject_transform_name("unroll(k loop)").find("e.g. unroll(k_loop) or unroll(42)"),
            std::string::npos);
  EXPECT_NE(reject_transform_name("unroll(k_loop"), "");
  EXPECT_EQ(reject_transform_name("thread_mrge_y")
                .rfind("unknown transform 'thread_mrge_y' (did you mean 'thread_merge_y'?)", 0),
            0u);
}

TEST(SourceTransforms, ValuesAreChecked) {
  const SourceTransform* merge = find_source_transform("thread_merge_x");
  ASSERT_NE(merge, nullptr);
  EXPECT_EQ(merge->reject("thread_merge_x", Value(int64_t{4})), "");
  EXPECT_NE(merge->reject("thread_merge_x", Value(int64_t{0})).find("not an integer in 1..1024"),
            std::string::npos);
  EXPECT_NE(merge->reject("thread_merge_x", Value(2.5)), "");
  const SourceTransform* unroll = find_source_transform("unroll(k_loop)");
  ASSERT_NE(unroll, nullptr);
  EXPECT_EQ(unroll->name, "unroll");
  EXPECT_EQ(unroll->reject("unroll(k_loop)", Value(int64_t{0})), "");
  EXPECT_EQ(unroll->reject("unroll(k_loop)", Value(std::string("x")))
                .rfind("unroll(k_loop) value x is not an integer", 0),
            0u);
  const SourceTransform* layout = find_source_transform("merge_layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(layout->reject("merge_layout", Value(std::string("consecutive"))), "");
  EXPECT_EQ(layout->reject("merge_layout", Value(std::string("diagonal"))),
            "merge_layout value diagonal is not a layout; expected strided or consecutive");
}

TEST(SourceTransforms, NeutralValues) {
  EXPECT_TRUE(is_neutral(*find_source_transform("thread_merge_y"), Value(1.0)));
  EXPECT_FALSE(is_neutral(*find_source_transform("thread_merge_y"), Value(int64_t{2})));
  EXPECT_TRUE(is_neutral(*find_source_transform("unroll"), Value(int64_t{0})));
  EXPECT_TRUE(is_neutral(*find_source_transform("merge_layout"), Value(std::string("strided"))));
}

TEST(SourceTransforms, EveryKnobHasARemedy) {
  for (const SourceTransform& transform : source_transforms()) {
    for (const SourceRemedy& remedy : transform.remedies) {
      EXPECT_TRUE(parse_remedy(remedy.remedy)) << transform.name << ": " << remedy.remedy;
    }
    EXPECT_FALSE(transform.remedies.empty()) << transform.name;
  }
  // The layout names the one value that applies its remedy: strided, against bank conflicts.
  const SourceTransform* layout = find_source_transform("merge_layout");
  ASSERT_NE(layout, nullptr);
  ASSERT_EQ(layout->remedies.size(), 1u);
  EXPECT_EQ(layout->remedies[0].remedy, "padding");
  EXPECT_EQ(layout->remedies[0].value, "strided");
}

}  // namespace
}  // namespace gputune
