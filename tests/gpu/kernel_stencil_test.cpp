// stencil.cu on ragged sizes against a float64 CPU stencil, and the generic transforms.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "process/gpu_list.h"

namespace gputune::test {
namespace {

const char* const kConfigs[] = {
    "",  // the baseline: one point per thread, neighbours from global memory
    "SHARED=1 BX=64 BY=4 MERGE_Y=4 PAD=1",
    "SHARED=1 BX=32 BY=16 MERGE_Y=2 PAD=0",
    "SHARED=0 BX=128 BY=2 MERGE_Y=8 PREFETCH=1",
    "SHARED=0 BX=64 BY=4 MERGE_Y=4 PREFETCH=0",
    "SHARED=0 BX=32 BY=4 MERGE_Y=8 PREFETCH=1 VEC=4",
    "SHARED=0 BX=64 BY=2 MERGE_Y=2 PREFETCH=0 VEC=2",
    "SHARED=0 BX=128 BY=1 MERGE_Y=1 PREFETCH=0 VEC=4",
};

struct Size {
  int nx, ny;
};

TEST(KernelStencil, RaggedSizesMatchCpuFloat64) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  const double c0 = 0.5, c1 = 0.125;  // the spec's coefficients
  for (const Size s : {Size{1000, 1023}, Size{4099, 33}, Size{31, 1000}}) {
    KernelHarness h("stencil", {{"nx", std::to_string(s.nx)}, {"ny", std::to_string(s.ny)}});
    const auto in = random_floats(static_cast<size_t>(s.nx) * s.ny, 9);
    auto at = [&](long long i, long long j) -> double {
      return i >= 0 && i < s.ny && j >= 0 && j < s.nx ? in[i * s.nx + j] : 0.0;
    };
    std::vector<double> expected(in.size());
    for (int i = 0; i < s.ny; ++i)
      for (int j = 0; j < s.nx; ++j)
        expected[static_cast<size_t>(i) * s.nx + j] =
            c0 * at(i, j) + c1 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
    for (const char* config : kConfigs) {
      const auto out = h.run(h.variant(config), {{"in", bytes_of(in)}}).at("out");
      const std::string where = std::to_string(s.nx) + "x" + std::to_string(s.ny) + " " + config;
      EXPECT_EQ(first_mismatch(out, expected, 1e-5, 1e-6), out.size()) << where;
    }
  }
}

TEST(KernelStencil, GenericTransformsLeaveResultsUnchanged) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  KernelHarness h("stencil", {{"nx", "1000"}, {"ny", "1023"}});
  const auto in = random_floats(1000 * 1023, 11);
  expect_transforms_preserve(h, h.variant("SHARED=0 BX=32 BY=4 MERGE_Y=4 PREFETCH=1 VEC=4"),
                             {{"in", bytes_of(in)}}, "out", 1e-6);
}

}  // namespace
}  // namespace gputune::test
