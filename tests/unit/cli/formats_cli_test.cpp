// The formats other tuners speak, from the command line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

TEST(FormatsCli, T1FileWithConstantMemoryRunsCompileOnly) {
  const std::string t1 = test::source_dir() + "/tests/formats/weighted_sum.json";
  CommandResult result = run_gputune("search " + t1 + " --compile-only --arch sm_90 -j 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("4 variants compiled for sm_90, 0 failed"), std::string::npos)
      << result.out;
}

TEST(FormatsCli, ImportKernelTunerCacheThenExportT4) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gputune_formats_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string formats = test::source_dir() + "/tests/formats/";
  const std::string db = (dir / "prior.db").string();
  CommandResult imported = run_gputune("import kt-cache " + formats + "kt_cache.json --spec " +
                                       formats + "scaled_sum.json --db " + db);
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("3 ok, 1 failed, 2 outside the spec's space"), std::string::npos)
      << imported.out;
  CommandResult exported =
      run_gputune("export --format t4 --db " + db + " --out " + (dir / "t4").string());
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  std::ifstream t4(dir / "t4" / "workload-1.t4.json");
  ASSERT_TRUE(t4.good()) << exported.out;
  EXPECT_EQ(nlohmann::json::parse(t4).at("results").size(), 4u);
  CommandResult wrong = run_gputune("import kt-cash x --spec y");
  EXPECT_EQ(wrong.exit_code, 64) << wrong.err;
  EXPECT_NE(wrong.err.find("gputune import kt-cache FILE --spec SPEC"), std::string::npos)
      << wrong.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
