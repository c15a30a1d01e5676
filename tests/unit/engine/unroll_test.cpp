#include <gtest/gtest.h>

#include "engine/engine.h"
#include "support/engine_golden.h"

namespace gputune::engine {
namespace {

using test::engine_fixture;
using test::nvrtc_errors;

SourceKnobs unroll(std::vector<std::pair<std::string, int>> targets) {
  SourceKnobs knobs;
  knobs.unroll = std::move(targets);
  return knobs;
}

KernelUnit inline_unit(const std::string& text) { return test::engine_unit("loops.cu", text); }

TEST(Unroll, PutsThePragmaOnTheInnermostLoopOfANestOnly) {
  test::expect_engine_rewrite(engine_fixture("unroll_nest.cu"), unroll({{"", 4}}),
                              "unroll_nest.unroll_4.cu", {"filter_rows"});
}

TEST(Unroll, OnEveryKindOfLoopReplacingAnExistingPragma) {
  test::expect_engine_rewrite(engine_fixture("unroll_labels.cu"), unroll({{"", 4}}),
                              "unroll_labels.unroll_4.cu", {"smooth"});
}

TEST(Unroll, OneLabelledLoopWrittenOnTheLabelsLine) {
  test::expect_engine_rewrite(engine_fixture("unroll_labels.cu"), unroll({{"taps", 1}}),
                              "unroll_labels.unroll_taps_1.cu", {"smooth"});
}

// A loop named by its line wins over the knob for every loop; 0 leaves a loop as written.
TEST(Unroll, NamedLoopsOverrideTheKnobForAll) {
  test::expect_engine_rewrite(engine_fixture("unroll_labels.cu"),
                              unroll({{"17", 8}, {"", 3}, {"taps", 0}, {"bias_loop", 8}}),
                              "unroll_labels.unroll_3_line17_8_taps_0.cu", {"smooth"});
}

TEST(Unroll, ALineNamesTheLoopOfItsLabelOrPragma) {
  const KernelUnit unit = engine_fixture("unroll_labels.cu");
  const Rewrite by_label_line = source_engine().rewrite(unit, unroll({{"16", 8}}));
  const Rewrite by_loop_line = source_engine().rewrite(unit, unroll({{"17", 8}}));
  const Rewrite by_label = source_engine().rewrite(unit, unroll({{"bias_loop", 8}}));
  ASSERT_TRUE(by_label.ok) << by_label.message;
  EXPECT_EQ(by_label_line.source, by_label.source);
  EXPECT_EQ(by_loop_line.source, by_label.source);
  const Rewrite by_pragma_line = source_engine().rewrite(unit, unroll({{"11", 3}}));
  ASSERT_TRUE(by_pragma_line.ok) << by_pragma_line.message;
  EXPECT_NE(by_pragma_line.source.find("#pragma unroll 3\n  while (s > 0) {"), std::string::npos)
      << by_pragma_line.source;
}

TEST(Unroll, ZeroLeavesTheTextAsItIs) {
  const KernelUnit unit = engine_fixture("unroll_labels.cu");
  const Rewrite rewrite = source_engine().rewrite(unit, unroll({{"", 0}, {"taps", 0}}));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source, unit.text);
}

TEST(Unroll, TheVerdictListsTheInnermostLoops) {
  const Analysis analysis = source_engine().analyse(engine_fixture("unroll_nest.cu"), {"unroll"});
  ASSERT_EQ(analysis.knobs.size(), 1u);
  EXPECT_TRUE(analysis.knobs[0].applies);
  EXPECT_EQ(analysis.knobs[0].reason, "#pragma unroll N on line 8 (innermost)");
  ASSERT_EQ(analysis.knobs[0].places.size(), 1u);
  EXPECT_EQ(analysis.knobs[0].places[0].str(), "unroll_nest.cu:8:5");
  EXPECT_EQ(analysis.knobs[0].places[0].text, "for (int t = 0; t < taps; ++t) { ...");
}

TEST(Unroll, ATargetThatNamesNoLoopListsTheKernelsLoops) {
  const KernelUnit unit = engine_fixture("unroll_labels.cu");
  const Analysis analysis = source_engine().analyse(unit, {"unroll(k_loop)", "unroll(6)"});
  const std::string loops =
      "its loops: taps at line 9 (innermost), line 12 (innermost), bias_loop at line 17 "
      "(innermost), line 20 (innermost)";
  ASSERT_EQ(analysis.knobs.size(), 2u);
  EXPECT_FALSE(analysis.knobs[0].applies);
  EXPECT_EQ(analysis.knobs[0].reason, "no loop labelled 'k_loop' in smooth; " + loops);
  EXPECT_EQ(analysis.knobs[0].places.size(), 4u);
  EXPECT_FALSE(analysis.knobs[1].applies);
  EXPECT_EQ(analysis.knobs[1].reason, "no loop at line 6 in smooth; " + loops);
  const Rewrite rewrite = source_engine().rewrite(unit, unroll({{"k_loop", 4}}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "unroll_labels.cu: unroll(k_loop): no loop labelled 'k_loop' in smooth; " + loops);
}

TEST(Unroll, TheNestsOuterLoopIsNotInnermost) {
  const Analysis analysis =
      source_engine().analyse(engine_fixture("unroll_nest.cu"), {"unroll(nothing)", "unroll(7)"});
  EXPECT_EQ(analysis.knobs[0].reason,
            "no loop labelled 'nothing' in filter_rows; its loops: line 7 (outer), line 8 "
            "(innermost)");
  EXPECT_TRUE(analysis.knobs[1].applies);
  EXPECT_EQ(analysis.knobs[1].reason, "#pragma unroll N on line 7 (outer)");
}

constexpr const char* kMacroLoop =
    R"(#define EACH_OF_FOUR(body) for (int r = 0; r < 4; ++r) { body; }
__global__ void add_four(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  EACH_OF_FOUR(y[i] += x[i])
  for (int k = 0; k < 2; ++k) y[i] *= 0.5f;
}
)";

TEST(Unroll, RefusesALoopWrittenInAMacroNamingTheMacro) {
  const KernelUnit unit = inline_unit(kMacroLoop);
  const Rewrite named = source_engine().rewrite(unit, unroll({{"5", 4}}));
  EXPECT_FALSE(named.ok);
  EXPECT_EQ(named.message,
            "loops.cu:5:3: unroll(5): the loop is written inside macro EACH_OF_FOUR's "
            "expansion, where no #pragma can be placed (`EACH_OF_FOUR(y[i] += x[i])`)");
  // The knob for every innermost loop takes the loops it can and names the one it leaves.
  const Analysis analysis = source_engine().analyse(unit, {"unroll"});
  EXPECT_TRUE(analysis.knobs[0].applies);
  EXPECT_EQ(analysis.knobs[0].reason,
            "#pragma unroll N on line 6 (innermost); leaves line 5 (innermost): loops.cu:5:3: the "
            "loop is written inside macro EACH_OF_FOUR's expansion, where no #pragma can be "
            "placed");
  const Rewrite all = source_engine().rewrite(unit, unroll({{"", 4}}));
  ASSERT_TRUE(all.ok) << all.message;
  EXPECT_NE(all.source.find("  EACH_OF_FOUR(y[i] += x[i])\n  #pragma unroll 4\n  for (int k"),
            std::string::npos)
      << all.source;
  EXPECT_EQ(nvrtc_errors(unit, all.source, {"add_four"}), "");
}

TEST(Unroll, RefusesANegativeCount) {
  const Rewrite rewrite =
      source_engine().rewrite(engine_fixture("unroll_nest.cu"), unroll({{"", -2}}));
  EXPECT_FALSE(rewrite.ok);
  EXPECT_EQ(rewrite.message,
            "unroll_nest.cu: unroll: the count must be 0 (leave the loop as written) or more, "
            "not -2");
}

TEST(Unroll, LoopsAfterALabelOrAnElseOnTheirLineGetALineOfTheirOwn) {
  const KernelUnit unit = inline_unit(
      "__global__ void k(float* y, int n) {\n"
      "  if (n > 4) y[0] = 1.0f; else for (int i = 0; i < n; ++i) y[i] = 0.0f;\n"
      "  again: while (n > 0) { --n; y[n] += 1.0f; }\n"
      "}\n");
  const Rewrite rewrite = source_engine().rewrite(unit, unroll({{"", 2}}));
  ASSERT_TRUE(rewrite.ok) << rewrite.message;
  EXPECT_EQ(rewrite.source,
            "__global__ void k(float* y, int n) {\n"
            "  if (n > 4) y[0] = 1.0f; else\n"
            "  #pragma unroll 2\n"
            "  for (int i = 0; i < n; ++i) y[i] = 0.0f;\n"
            "  again:\n"
            "  #pragma unroll 2\n"
            "  while (n > 0) { --n; y[n] += 1.0f; }\n"
            "}\n");
  EXPECT_EQ(nvrtc_errors(unit, rewrite.source, {"k"}), "");
}

}  // namespace
}  // namespace gputune::engine
