// transpose.cu on ragged sizes against a CPU transpose (exact), and the generic transforms.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "process/gpu_list.h"

namespace gputune::test {
namespace {

const char* const kConfigs[] = {
    "",  // the baseline: no shared memory
    "SHARED=1 TILE=64 PAD=1 MERGE_Y=8 VEC=4",
    "SHARED=1 TILE=32 PAD=0 MERGE_Y=4 VEC=2",
    "SHARED=1 TILE=32 PAD=1 MERGE_Y=1 VEC=1",
    "SHARED=1 TILE=64 PAD=0 MERGE_Y=2 VEC=4 block_order=swizzle16",
    "SHARED=0 TILE=16 MERGE_Y=2 VEC=1",
    "SHARED=1 TILE=64 PAD=1 MERGE_Y=4 VEC=4 TALL=2 STREAM=1",
    "SHARED=1 TILE=64 PAD=1 MERGE_Y=8 VEC=1 TALL=2",
    "SHARED=1 TILE=32 PAD=1 MERGE_Y=2 VEC=4 STREAM=1",
};

TEST(KernelTranspose, RaggedSizesMatchCpu) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  for (int n : {1000, 1022, 1023, 4099}) {
    KernelHarness h("transpose", {{"n", std::to_string(n)}});
    const auto in = random_floats(static_cast<size_t>(n) * n, n);
    std::vector<double> expected(in.size());
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        expected[static_cast<size_t>(x) * n + y] = in[static_cast<size_t>(y) * n + x];
    for (const char* config : kConfigs) {
      const auto out = h.run(h.variant(config), {{"in", bytes_of(in)}}).at("out");
      EXPECT_EQ(first_mismatch(out, expected, 0, 0), out.size()) << "n=" << n << " " << config;
    }
  }
}

TEST(KernelTranspose, GenericTransformsLeaveResultsUnchanged) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  KernelHarness h("transpose", {{"n", "1023"}});
  const auto in = random_floats(1023 * 1023, 7);
  expect_transforms_preserve(h, h.variant("SHARED=1 TILE=32 MERGE_Y=4 VEC=1 PAD=1"),
                             {{"in", bytes_of(in)}}, "out", 0);
}

}  // namespace
}  // namespace gputune::test
