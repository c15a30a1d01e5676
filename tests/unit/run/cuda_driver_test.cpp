#include <gtest/gtest.h>

#include <memory>

#include "gputune/error.h"
#include "process/gpu_list.h"
#include "run/runner.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

// The binary must start and say why it cannot measure where there is no driver or GPU.
TEST(CudaDriver, WithoutAGpuListsNothingAndRefusesToMeasure) {
  if (!list_gpus().empty()) GTEST_SKIP() << "a GPU is present";
  Problem problem(load_spec(test::source_dir() + "/spaces/transpose.yaml", {{"n", "64"}}));
  try {
    make_gpu_runner(problem, 0, TimingOptions{}, {});
    FAIL() << "make_gpu_runner succeeded without a GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNoGpu) << e.what();
    EXPECT_NE(std::string(e.what()).find("--compile-only"), std::string::npos) << e.what();
  }
}

TEST(CudaDriver, ListingGpusNeverThrows) { EXPECT_NO_THROW(list_gpus()); }

}  // namespace
}  // namespace gputune
