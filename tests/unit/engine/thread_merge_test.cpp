#include <gtest/gtest.h>

#include "merge_cases.h"

namespace gputune::engine {
namespace {

using test::fixture;
using test::unit_of;

TEST(ThreadMerge, RewritesEachKernelAsTheGoldenSays) {
  for (const test::MergeKernel& kernel : test::merge_kernels()) {
    for (const test::Variant& variant : test::thread_merge_variants(kernel.two_d)) {
      SCOPED_TRACE(kernel.name + " " + variant.suffix);
      test::expect_rewrite_golden(kernel.name, variant);
    }
  }
}

}  // namespace
}  // namespace gputune::engine
