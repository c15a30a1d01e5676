// NVRTC (CUDA 12.9+) keeps the cubins it compiled in the driver's compute cache wherever a
// driver is loaded, so a variant compiled before "compiles" in milliseconds: --no-cache must
// turn that off too, or a cold-compile benchmark measures the cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "process/gpu_list.h"
#include "store/store.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// The median compile time of the variants a search stored.
double median_compile_ms(const std::string& extra, const fs::path& dir, int run) {
  const std::string db = (dir / ("run" + std::to_string(run) + ".db")).string();
  const std::string args = "search " + test::source_dir() +
                           "/spaces/sgemm.yaml --set m=512,n=512,k=512 --strategy random "
                           "--budget 8 --seed 7 --fast -q --db " +
                           db + " " + extra;
  const testing::CommandResult result = testing::run_gputune(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  auto store = open_sqlite_store(db, true);
  std::vector<double> ms;
  for (const WorkloadSummary& w : store->workloads()) {
    for (const Measurement& m : store->measured(w.id)) {
      if (m.compile_ms > 0) ms.push_back(m.compile_ms);
    }
  }
  EXPECT_GE(ms.size(), 8u) << result.out << result.err;
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

TEST(NvrtcCache, NoCacheCompilesEveryVariantAgain) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_nvrtc_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Each search its own compute cache, so that runs of other tests leave nothing in it.
  setenv("CUDA_CACHE_PATH", (dir / "compute-cache").c_str(), 1);
  const double first = median_compile_ms("--no-cache", dir, 1);
  const double again = median_compile_ms("--no-cache", dir, 2);
  std::cout << "median compile: " << first << " ms, again with --no-cache " << again << " ms\n";
  ASSERT_GT(first, 0);
  EXPECT_GT(again, 0.5 * first) << "the second --no-cache search compiled from a cache";
  unsetenv("CUDA_CACHE_PATH");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
