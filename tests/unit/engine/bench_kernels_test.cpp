// The naive kernels of bench/engine/ (issue 26's measurements) as the engine sees them: each
// parses, the knobs their specs list apply where they should, and every rewrite of unroll and
// pad_shared compiles with NVRTC for sm_90.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/engine.h"
#include "support/engine_golden.h"
#include "test_paths.h"

namespace gputune::engine {
namespace {

struct BenchKernel {
  std::string file, kernel;
  bool has_loop, has_tile;
  bool stages = false;  // stage_shared applies (and pad_shared then pads its tile)
};

KernelUnit bench_unit(const std::string& file) {
  KernelUnit unit;
  unit.file_name = file;
  unit.text = test::read_text(std::filesystem::path(test::source_dir()) / "bench/engine" / file);
  return unit;
}

class BenchKernels : public testing::TestWithParam<BenchKernel> {};

TEST_P(BenchKernels, ParseAndEveryUnrollAndPaddingCompiles) {
  const BenchKernel& param = GetParam();
  const KernelUnit unit = bench_unit(param.file);
  ASSERT_FALSE(unit.text.empty()) << param.file;
  const Analysis analysis = source_engine().analyse(unit, {"unroll", "pad_shared", "stage_shared"});
  ASSERT_TRUE(analysis.parsed) << analysis.diagnostics;
  EXPECT_EQ(analysis.find("unroll")->applies, param.has_loop) << analysis.find("unroll")->reason;
  EXPECT_EQ(analysis.find("pad_shared")->applies, param.has_tile || param.stages)
      << analysis.find("pad_shared")->reason;
  EXPECT_EQ(analysis.find("stage_shared")->applies, param.stages)
      << analysis.find("stage_shared")->reason;
  for (int unroll : {0, 1, 4}) {
    for (int pad : {0, 1}) {
      if ((unroll != 0 && !param.has_loop) || (pad != 0 && !param.has_tile)) continue;
      SourceKnobs knobs;
      knobs.unroll = {{"", unroll}};
      knobs.pad_shared = {{"", pad}};
      const Rewrite rewrite = source_engine().rewrite(unit, knobs);
      ASSERT_TRUE(rewrite.ok) << rewrite.message;
      EXPECT_EQ(test::nvrtc_errors(unit, rewrite.source, {param.kernel}), "")
          << "unroll " << unroll << ", pad_shared " << pad << ":\n"
          << rewrite.source;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Naive, BenchKernels,
    testing::Values(BenchKernel{"matmul.cu", "matmul", true, false, true},
                    BenchKernel{"nbody.cu", "nbody", true, false},
                    BenchKernel{"transpose.cu", "transpose", false, false, true},
                    BenchKernel{"tiled_transpose.cu", "tiled_transpose", false, true},
                    BenchKernel{"matvec.cu", "matvec", true, false, true},
                    BenchKernel{"conv2d.cu", "conv2d", true, false},
                    BenchKernel{"stencil.cu", "stencil5", false, false},
                    BenchKernel{"complex_abs.cu", "complex_abs", false, false}),
    [](const testing::TestParamInfo<BenchKernel>& info) { return info.param.kernel; });

}  // namespace
}  // namespace gputune::engine
