// The formats other tuners speak, from the command line.
#include <gtest/gtest.h>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

using testing::CommandResult;
using testing::run_gputune;

TEST(FormatsCli, T1FileRunsCompileOnly) {
  const std::string t1 = test::source_dir() + "/tests/formats/scaled_sum.json";
  CommandResult result = run_gputune("search " + t1 + " --compile-only --arch sm_90 -j 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  // 8 block sizes x 4 tiles, less the 4 whose block_size_x * TILE exceeds 1024.
  EXPECT_NE(result.out.find("28 variants compiled for sm_90, 0 failed"), std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace gputune
