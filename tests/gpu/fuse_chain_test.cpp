// The engine's loop fusion on the GPU: every variant of bench/engine/stencil_chain.yaml (three
// naive smoothing passes; fuse 0, 2 and 3 with each tile shape and thread merge) at ragged
// sizes, checked against the unfused baseline; the fused ones run, none is refused or wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process/gpu_list.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(FuseChain, EveryFusionIsCorrectAtRaggedSizes) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  const std::string spec = test::source_dir() + "/bench/engine/stencil_chain.yaml";
  for (const char* sizes : {" --set nx=1000 --set ny=333", " --set nx=77 --set ny=1001"}) {
    SCOPED_TRACE(sizes);
    const fs::path db = fs::temp_directory_path() / ("gputune_fuse_" + std::to_string(getpid()));
    fs::remove(db);
    const auto result = testing::run_gputune("search " + spec + sizes +
                                             " --strategy brute_force --fast --json --top "
                                             "1000000 --db " +
                                             db.string());
    fs::remove(db);
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    const nlohmann::json report = nlohmann::json::parse(result.out);
    EXPECT_TRUE(report["failed"].empty()) << report["failed"].dump(2);
    std::map<int, int> ok;  // fuse value -> variants checked correct
    for (const nlohmann::json& row : report["results"]) {
      ++ok[row["config"].value("fuse", 0)];
    }
    // Every tile shape and thread merge of the space fused two ways (50 of them) and three ways
    // (49: 128 x 64 tiles with their halos exceed the static shared memory).
    EXPECT_EQ(ok[2], 50) << report["results"].dump(1);
    EXPECT_EQ(ok[3], 49) << report["results"].dump(1);
  }
}

}  // namespace
}  // namespace gputune
