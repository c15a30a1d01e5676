// Every rewrite the merges produce for the kernels of tests/fixtures/engine compiles with NVRTC
// for sm_90, as gputune compiles variants.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gputune::engine
