// sgemm.cu on ragged sizes against a float64 CPU product, and the generic transforms.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "process/gpu_list.h"

namespace gputune::test {
namespace {

const char* const kConfigs[] = {
    "",  // the baseline: 32 x 32 tiles, one output per thread
    "BM=128 BN=128 BK=8 TM=8 TN=8 WX=16 ASYNC=0 STAGES=2 PAD=4 UNROLL=16",
    "BM=128 BN=64 BK=16 TM=8 TN=4 WX=8 ASYNC=0 STAGES=1 PAD=0 UNROLL=2",
    "BM=64 BN=128 BK=16 TM=8 TN=8 WX=16 ASYNC=1 STAGES=3 PAD=4 UNROLL=16",
    // Fewer 16-byte copies of the B tile (8 x 64 / 4) than threads (256): once wrong answers.
    "BM=128 BN=64 BK=8 TM=8 TN=4 WX=8 ASYNC=1 STAGES=3 PAD=4 UNROLL=16",
    "BM=64 BN=64 BK=8 TM=4 TN=4 WX=8 ASYNC=0 STAGES=2 PAD=4 UNROLL=16 max_registers=128",
    "BM=128 BN=128 BK=16 TM=8 TN=16 WX=4 ASYNC=1 STAGES=4 PAD=4 UNROLL=16",
    "BM=128 BN=256 BK=16 TM=8 TN=16 WX=8 ASYNC=0 STAGES=2 PAD=4 UNROLL=16",
    "BM=128 BN=256 BK=8 TM=8 TN=16 WX=8 ASYNC=1 STAGES=4 PAD=4 UNROLL=16 block_order=swizzle8",
    "BM=64 BN=128 BK=8 TM=8 TN=16 WX=8 ASYNC=0 STAGES=1 PAD=0 UNROLL=16 block_order=swizzle8",
    // The H200 winners at 4096^3 and 8192^3 (bench/RESULTS.md).
    "BM=128 BN=256 BK=16 TM=8 TN=16 WX=16 ASYNC=0 STAGES=2 PAD=4 UNROLL=16",
    "BM=128 BN=128 BK=16 TM=8 TN=16 WX=8 ASYNC=0 STAGES=2 PAD=4 UNROLL=16",
};

struct Size {
  int m, n, k;
};

TEST(KernelSgemm, RaggedSizesMatchCpuFloat64) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  // The last two have N and K multiples of 4, so interior blocks take the unguarded loads, and
  // a partial last K tile (260) or none (512).
  for (const Size s : {Size{1000, 1023, 257}, Size{129, 4099, 1001}, Size{1025, 67, 36},
                       Size{1000, 1028, 260}, Size{300, 516, 512}}) {
    KernelHarness h(
        "sgemm",
        {{"m", std::to_string(s.m)}, {"n", std::to_string(s.n)}, {"k", std::to_string(s.k)}});
    const auto a = random_floats(static_cast<size_t>(s.m) * s.k, 1);
    const auto b = random_floats(static_cast<size_t>(s.k) * s.n, 2);
    std::vector<double> expected(static_cast<size_t>(s.m) * s.n, 0.0);
    for (int i = 0; i < s.m; ++i)
      for (int p = 0; p < s.k; ++p) {
        const double aip = a[static_cast<size_t>(i) * s.k + p];
        const float* brow = &b[static_cast<size_t>(p) * s.n];
        double* crow = &expected[static_cast<size_t>(i) * s.n];
        for (int j = 0; j < s.n; ++j) crow[j] += aip * brow[j];
      }
    std::vector<float> first;
    for (const char* config : kConfigs) {
      const auto c = h.run(h.variant(config), {{"a", bytes_of(a)}, {"b", bytes_of(b)}}).at("c");
      const std::string where = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                std::to_string(s.k) + " " + config;
      EXPECT_LT(relative_error(c, expected), 1e-5) << where;
      EXPECT_EQ(first_mismatch(c, expected, 1e-3, 1e-3), c.size()) << where;
      // Every variant adds in the same order: the same bits.
      if (first.empty()) {
        first = c;
      } else {
        EXPECT_EQ(0, std::memcmp(c.data(), first.data(), c.size() * sizeof(float))) << where;
      }
    }
  }
}

TEST(KernelSgemm, GenericTransformsLeaveResultsUnchanged) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  KernelHarness h("sgemm", {{"m", "1000"}, {"n", "1023"}, {"k", "129"}});
  const auto a = random_floats(1000 * 129, 3);
  const auto b = random_floats(129 * 1023, 4);
  expect_transforms_preserve(
      h, h.variant("BM=128 BN=128 BK=8 TM=8 TN=8 WX=8 ASYNC=1 STAGES=3 PAD=4 UNROLL=16"),
      {{"a", bytes_of(a)}, {"b", bytes_of(b)}}, "c", 1e-6);
}

}  // namespace
}  // namespace gputune::test
