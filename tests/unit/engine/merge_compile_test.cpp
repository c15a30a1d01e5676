// Every rewrite the merges produce for the kernels of tests/fixtures/engine compiles with NVRTC
// for sm_90, as gputune compiles variants: each merge alone, and every combination of all the
// engine's knobs.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>

#include "merge_cases.h"

namespace gputune::engine {
namespace {

void expect_compiles(const std::string& kernel, const std::vector<test::Variant>& variants) {
  const KernelUnit unit = test::engine_fixture(kernel + ".cu");
  for (const test::Variant& variant : variants) {
    SCOPED_TRACE(kernel + " " + variant.suffix);
    const Rewrite rewrite = source_engine().rewrite(unit, variant.knobs);
    ASSERT_TRUE(rewrite.ok) << rewrite.message;
    EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {kernel}), "") << rewrite.source;
  }
}

TEST(MergeCompile, EveryThreadMergeOfEveryKernelCompiles) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    expect_compiles(kernel.name, test::thread_merge_variants(kernel.two_d));
  }
}

TEST(MergeCompile, EveryBlockMergeOfEveryKernelCompiles) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    expect_compiles(kernel.name, test::block_merge_variants(kernel.two_d));
    expect_compiles(kernel.name, test::combined_variants(kernel.two_d));
  }
}

// The values of one knob in the product: its neutral value, and `other` where the engine's
// verdict says the knob applies to the kernel.
std::vector<int> values(const Analysis& analysis, const std::string& knob, int neutral, int other) {
  const KnobVerdict* verdict = analysis.find(knob);
  EXPECT_NE(verdict, nullptr) << knob;
  if (verdict && verdict->applies) return {neutral, other};
  return {neutral};
}

std::string name(const SourceKnobs& knobs) {
  std::string out =
      "tm=" + std::to_string(knobs.thread_merge_x) + "," + std::to_string(knobs.thread_merge_y) +
      (knobs.merge_layout == MergeLayout::kConsecutive ? "c" : "s") +
      " bm=" + std::to_string(knobs.block_merge_x) + "," + std::to_string(knobs.block_merge_y);
  for (const auto& [target, n] : knobs.unroll) out += " unroll=" + std::to_string(n);
  for (const auto& [target, n] : knobs.pad_shared) out += " pad=" + std::to_string(n);
  return out + " launch_bounds=" + std::to_string(knobs.launch_bounds);
}

// Issue 26's "every combination of the knobs on those kernels compiles with NVRTC for sm_90":
// thread merge along each dimension the kernel reads, in both layouts, block merge likewise,
// unroll, pad_shared and launch_bounds, each knob at its neutral value and at one other where
// the engine's verdict says it applies. A combination is compiled or refused with the engine's
// reason; the rewrites of a kernel that come out the same are compiled once.
TEST(MergeCompile, EveryCombinationOfTheKnobsCompiles) {
  size_t compiled = 0;
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    const KernelUnit unit = test::engine_fixture(kernel.name + ".cu");
    const Analysis analysis = source_engine().analyse(unit);
    ASSERT_TRUE(analysis.parsed) << analysis.diagnostics;
    const std::vector<int> tm_x = values(analysis, "thread_merge_x", 1, 2);
    const std::vector<int> tm_y = values(analysis, "thread_merge_y", 1, 2);
    const std::vector<int> bm_x = values(analysis, "block_merge_x", 1, 2);
    const std::vector<int> bm_y = values(analysis, "block_merge_y", 1, 2);
    const std::vector<int> unroll = values(analysis, "unroll", 0, 4);
    const std::vector<int> pad = values(analysis, "pad_shared", 0, 1);
    const std::vector<int> bounds = values(analysis, "launch_bounds", 0, 2);
    EXPECT_GT(tm_x.size() * bm_x.size(), 1u) << kernel.name << ": nothing merges";
    std::set<std::string> seen;
    std::map<std::string, size_t> refusals;
    for (const int tx : tm_x) {
      for (const int ty : tm_y) {
        for (const int layout : {0, 1}) {
          if (layout == 1 && tx == 1 && ty == 1) continue;  // the same code
          for (const int bx : bm_x) {
            for (const int by : bm_y) {
              for (const int u : unroll) {
                for (const int p : pad) {
                  for (const int b : bounds) {
                    SourceKnobs knobs;
                    knobs.thread_merge_x = tx;
                    knobs.thread_merge_y = ty;
                    knobs.merge_layout = layout ? MergeLayout::kConsecutive : MergeLayout::kStrided;
                    knobs.block_merge_x = bx;
                    knobs.block_merge_y = by;
                    if (u) knobs.unroll = {{"", u}};
                    if (p) knobs.pad_shared = {{"", p}};
                    knobs.launch_bounds = b;
                    knobs.block_threads[kernel.name] =
                        kernel.block_x * kernel.block_y * bx * by / (tx * ty);
                    SCOPED_TRACE(kernel.name + " " + name(knobs));
                    const Rewrite rewrite = source_engine().rewrite(unit, knobs);
                    if (!rewrite.ok) {
                      // The engine's refusal names the statement: "file:line:column: knob: ...".
                      EXPECT_EQ(rewrite.message.rfind(kernel.name + ".cu:", 0), 0u)
                          << rewrite.message;
                      ++refusals[rewrite.message];
                      continue;
                    }
                    if (!seen.insert(rewrite.source).second) continue;
                    ++compiled;
                    EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {kernel.name}), "")
                        << rewrite.source;
                  }
                }
              }
            }
          }
        }
      }
    }
    std::cout << kernel.name << ": " << seen.size() << " distinct rewrites of thread_merge_x "
              << tm_x.size() << " x thread_merge_y " << tm_y.size() << " x block_merge_x "
              << bm_x.size() << " x block_merge_y " << bm_y.size() << " x unroll " << unroll.size()
              << " x pad_shared " << pad.size() << " x launch_bounds " << bounds.size()
              << " values (x 2 layouts where a thread merges)\n";
    for (const auto& [message, count] : refusals) {
      std::cout << kernel.name << ": " << count << " combinations refused: " << message << "\n";
    }
  }
  std::cout << compiled << " distinct rewrites compiled\n";
  EXPECT_GT(compiled, 400u);
}

}  // namespace
}  // namespace gputune::engine
