// The transformation engine's knobs under a spec's `transforms:`: names, values, targets and
// the baseline, as the loader and check_spec read them.
#include <gtest/gtest.h>

#include "gputune/error.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

// A spec beside tests/fixtures/engine/vector_add_int.cu; `transforms` are its last lines.
std::string spec_text(const std::string& transforms) {
  return "kernel: {source: vector_add_int.cu, name: vector_add}\n"  // 1
         "problem: {n: 1000}\n"                                     // 2
         "arguments:\n"                                             // 3
         "  - {name: c, type: float32, count: n, output: true}\n"   // 4
         "  - {name: a, type: float32, count: n}\n"                 // 5
         "  - {name: b, type: float32, count: n}\n"                 // 6
         "  - {name: n, type: int32, value: n}\n"                   // 7
         "launch: {block: [128], grid: [ceil(n / 128)]}\n"          // 8
         "transforms:\n" +                                          // 9
         transforms;                                                // 10...
}

std::string path() { return test::source_dir() + "/tests/fixtures/engine/knobs.yaml"; }

std::string error_of(const std::string& transforms) {
  try {
    parse_spec(spec_text(transforms), path());
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << transforms;
  return "";
}

TEST(EngineKnobSpec, EveryKnobIsATransform) {
  const Spec spec = parse_spec(spec_text("  unroll: [0, 2, 4, 8]\n"
                                         "  unroll(k_loop): [0, 4]\n"
                                         "  unroll(12): [0, 2]\n"
                                         "  thread_merge_x: [1, 2]\n"
                                         "  thread_merge_y: [1, 4]\n"
                                         "  merge_layout: [strided, consecutive]\n"
                                         "  block_merge_x: [1, 2]\n"
                                         "  block_merge_y: [1, 2]\n"
                                         "  pad_shared: [0, 1, 2]\n"
                                         "  pad_shared(tile): [0, 1]\n"
                                         "  launch_bounds: [0, 1, 2, 4]\n"
                                         "  block_order: [row, diagonal]\n"),
                               path());
  ASSERT_EQ(spec.transforms.size(), 12u);
  for (const ParameterSpec& transform : spec.transforms) EXPECT_TRUE(transform.is_transform);
  EXPECT_EQ(spec.transforms[1].name, "unroll(k_loop)");
  EXPECT_TRUE(spec.parameters.empty());
}

TEST(EngineKnobSpec, TheBaselineIsTheKernelAsWrittenUnlessTheSpecSaysOtherwise) {
  const Spec spec = parse_spec(spec_text("  thread_merge_y: [2, 4, 1]\n"
                                         "  merge_layout: [consecutive, strided]\n"
                                         "  unroll: [4, 8]\n"),
                               path());
  ASSERT_EQ(spec.baseline.size(), 3u);
  EXPECT_EQ(spec.baseline[0].second, Value(int64_t{1}));
  EXPECT_EQ(spec.baseline[1].second, Value(std::string("strided")));
  EXPECT_EQ(spec.baseline[2].second, Value(int64_t{4}));  // 0 is not listed: the first value
  const Spec written = parse_spec(spec_text("  thread_merge_y: [1, 2]\n"
                                            "baseline: {thread_merge_y: 2}\n"),
                                  path());
  EXPECT_EQ(written.baseline[0].second, Value(int64_t{2}));
}

TEST(EngineKnobSpec, ValuesAreCheckedWhereTheyAreWritten) {
  EXPECT_EQ(error_of("  thread_merge_y: [1, 0]\n"),
            path() +
                ":10:23: thread_merge_y value 0 is not an integer in 1..1024; expected 1 (no "
                "merge) or how many threads or blocks one does the work of (2, 4, 8, ...)");
  EXPECT_EQ(error_of("  merge_layout: [strided, diagonal]\n"),
            path() +
                ":10:27: merge_layout value diagonal is not a layout; expected strided or "
                "consecutive");
  EXPECT_EQ(error_of("  unroll(k_loop): [0, 2.5]\n")
                .rfind(path() + ":10:23: unroll(k_loop) value 2.5 is not an integer", 0),
            0u);
  EXPECT_EQ(error_of("  launch_bounds: [-1]\n")
                .rfind(path() + ":10:19: launch_bounds value -1 is not an integer", 0),
            0u);
}

TEST(EngineKnobSpec, NamesAndTargetsAreCheckedWhereTheyAreWritten) {
  EXPECT_EQ(
      error_of("  thread_merge: [1, 2]\n")
          .rfind(path() + ":10:3: unknown transform 'thread_merge' (did you mean 'thread_", 0),
      0u);
  EXPECT_EQ(error_of("  pad_shared(3): [0, 1]\n"),
            path() +
                ":10:3: transform 'pad_shared(3)' does not name its target as expected; "
                "expected pad_shared(<a 2-D __shared__ array>), e.g. pad_shared(tile)");
  EXPECT_EQ(error_of("  block_merge_x(a): [1, 2]\n"),
            path() +
                ":10:3: transform 'block_merge_x' takes no target, got 'block_merge_x(a)'; "
                "expected 'block_merge_x' alone");
  EXPECT_EQ(error_of("  unroll: [0]\n  unroll: [2]\n"),
            path() + ":11:3: duplicate key 'unroll' in transforms; expected each key once");
}

TEST(EngineKnobSpec, ExpressionsReadTheKnobsThatAreNames) {
  const Spec spec = parse_spec(spec_text("  thread_merge_x: [1, 2, 4]\n"
                                         "  unroll(k_loop): [0, 4]\n"
                                         "constraints: [thread_merge_x <= 2]\n"),
                               path());
  EXPECT_EQ(spec.constraints.size(), 1u);
  const std::string message = error_of(
      "  unroll(k_loop): [0, 4]\n"
      "constraints: [unroll > 0]\n");
  EXPECT_NE(message.find("undefined name 'unroll'"), std::string::npos) << message;
}

}  // namespace
}  // namespace gputune
