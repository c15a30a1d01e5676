// stencil_chain: the unfused chain (three stencil5 launches through scratch buffers) and the
// fused kernel (one launch, halo recomputed) on ragged sizes against three float64 CPU loops.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "process/gpu_list.h"

namespace gputune::test {
namespace {

const char* const kConfigs[] = {
    "",  // the baseline: unfused, one point per thread
    "FUSED=0 SHARED=0 BX=64 BY=4 MERGE_Y=4 PREFETCH=1 VEC=4",
    "FUSED=0 SHARED=1 BX=32 BY=16 MERGE_Y=2 PAD=1",
    "FUSED=1 BX=32 BY=2 MERGE_Y=1",
    "FUSED=1 BX=64 BY=4 MERGE_Y=4 PAD=1",
    "FUSED=1 BX=128 BY=8 MERGE_Y=2",
    "FUSED=1 BX=32 BY=16 MERGE_Y=8 PAD=1",
};

struct Size {
  int nx, ny;
};

std::vector<double> stencil_loop(const std::vector<double>& in, Size s) {
  const double c0 = 0.5, c1 = 0.125;  // the spec's coefficients
  auto at = [&](long long i, long long j) -> double {
    return i >= 0 && i < s.ny && j >= 0 && j < s.nx ? in[i * s.nx + j] : 0.0;
  };
  std::vector<double> out(in.size());
  for (int i = 0; i < s.ny; ++i)
    for (int j = 0; j < s.nx; ++j)
      out[static_cast<size_t>(i) * s.nx + j] =
          c0 * at(i, j) + c1 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
  return out;
}

TEST(KernelStencilChain, FusedAndUnfusedMatchThreeCpuFloat64Loops) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  for (const Size s : {Size{1000, 1023}, Size{4099, 33}, Size{31, 1000}, Size{5, 7}}) {
    KernelHarness h("stencil_chain", {{"nx", std::to_string(s.nx)}, {"ny", std::to_string(s.ny)}});
    const auto in = random_floats(static_cast<size_t>(s.nx) * s.ny, 9);
    std::vector<double> expected(in.begin(), in.end());
    for (int loop = 0; loop < 3; ++loop) expected = stencil_loop(expected, s);
    for (const char* config : kConfigs) {
      const Variant v = h.variant(config);
      EXPECT_EQ(v.launches.size(), std::string(config).find("FUSED=1") == 0 ? 1u : 3u);
      const auto out = h.run(v, {{"in", bytes_of(in)}}).at("out");
      const std::string where = std::to_string(s.nx) + "x" + std::to_string(s.ny) + " " + config;
      EXPECT_EQ(first_mismatch(out, expected, 1e-5, 1e-6), out.size()) << where;
    }
  }
}

TEST(KernelStencilChain, GenericTransformsLeaveTheFusedResultUnchanged) {
  if (gputune::list_gpus().empty()) GTEST_SKIP() << "no GPU";
  KernelHarness h("stencil_chain", {{"nx", "1000"}, {"ny", "1023"}});
  const auto in = random_floats(1000 * 1023, 11);
  expect_transforms_preserve(h, h.variant("FUSED=1 BX=64 BY=4 MERGE_Y=4 PAD=1"),
                             {{"in", bytes_of(in)}}, "out", 1e-6);
}

}  // namespace
}  // namespace gputune::test
