// reduce.cu on ragged sizes against a float64 CPU sum, launched twice on the same buffers (the
// ticket counter must come back to zero), and the generic transforms.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "process/gpu_list.h"

namespace gputune::test {
namespace {

const char* const kConfigs[] = {
    "",  // the baseline: one element per thread, shared-memory tree
    "BLOCK=1024 EPT=4 VEC=4 UNROLL=4 SHUFFLE=1",
    "BLOCK=128 EPT=2 VEC=2 UNROLL=1 SHUFFLE=0",
    "BLOCK=512 EPT=8 VEC=1 UNROLL=4 SHUFFLE=1",
    "BLOCK=256 EPT=1 VEC=4 UNROLL=1 SHUFFLE=1",
};

TEST(KernelReduce, RaggedSizesMatchCpuFloat64) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  for (long long n : {1LL, 1000LL, 1023LL, 4099LL, (1LL << 22) + 3}) {
    KernelHarness h("reduce", {{"n", std::to_string(n)}});
    const auto x = random_floats(static_cast<size_t>(n), n, 0.0f, 1.0f);
    double sum = 0;
    for (float v : x) sum += v;
    for (const char* config : kConfigs) {
      const Variant v = h.variant(config);
      const auto once = h.run(v, {{"x", bytes_of(x)}}).at("out");
      const auto twice = h.run(v, {{"x", bytes_of(x)}}, 2).at("out");
      EXPECT_LT(relative_error(once, {sum}), 1e-5) << "n=" << n << " " << config;
      EXPECT_EQ(once[0], twice[0]) << "n=" << n << " " << config << ": a second launch differs";
    }
  }
}

TEST(KernelReduce, GenericTransformsLeaveResultsUnchanged) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  KernelHarness h("reduce", {{"n", "1000003"}});
  const auto x = random_floats(1000003, 5, 0.0f, 1.0f);
  expect_transforms_preserve(h, h.variant("BLOCK=256 EPT=4 VEC=4 SHUFFLE=1"), {{"x", bytes_of(x)}},
                             "out", 1e-6);
}

}  // namespace
}  // namespace gputune::test
