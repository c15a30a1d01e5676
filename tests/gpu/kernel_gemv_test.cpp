// gemv.cu on ragged sizes against a float64 CPU product, and the generic transforms.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "process/gpu_list.h"

namespace gputune::test {
namespace {

const char* const kConfigs[] = {
    "",  // the baseline: one thread per row
    "SHARED=1 TPR=1 ROWS=128 MERGE=1 KT=32",
    "SHARED=1 TPR=8 ROWS=8 MERGE=2 KT=128 UNROLL=4",
    "TPR=32 ROWS=8 MERGE=4 VEC=4 UNROLL=4",
    "TPR=8 ROWS=32 MERGE=2 VEC=2 UNROLL=1",
    "TPR=32 ROWS=4 MERGE=1 VEC=4 UNROLL=4",
};

struct Size {
  int m, n;
};

TEST(KernelGemv, RaggedSizesMatchCpuFloat64) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  for (const Size s : {Size{1000, 1023}, Size{1023, 1000}, Size{4099, 258}, Size{7, 4099}}) {
    KernelHarness h("gemv", {{"m", std::to_string(s.m)}, {"n", std::to_string(s.n)}});
    const auto a = random_floats(static_cast<size_t>(s.m) * s.n, 1);
    const auto x = random_floats(s.n, 2);
    std::vector<double> expected(s.m, 0.0);
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j)
        expected[i] += double(a[static_cast<size_t>(i) * s.n + j]) * x[j];
    for (const char* config : kConfigs) {
      const auto y = h.run(h.variant(config), {{"a", bytes_of(a)}, {"x", bytes_of(x)}}).at("y");
      const std::string where = std::to_string(s.m) + "x" + std::to_string(s.n) + " " + config;
      EXPECT_LT(relative_error(y, expected), 1e-5) << where;
      EXPECT_EQ(first_mismatch(y, expected, 1e-3, 1e-3), y.size()) << where;
    }
  }
}

TEST(KernelGemv, GenericTransformsLeaveResultsUnchanged) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  KernelHarness h("gemv", {{"m", "1001"}, {"n", "1024"}});
  const auto a = random_floats(1001 * 1024, 3);
  const auto x = random_floats(1024, 4);
  expect_transforms_preserve(h, h.variant("TPR=32 ROWS=8 MERGE=2 VEC=4 UNROLL=4"),
                             {{"a", bytes_of(a)}, {"x", bytes_of(x)}}, "y", 1e-6);
}

}  // namespace
}  // namespace gputune::test
