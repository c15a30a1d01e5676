// The transpose search end to end, through the gputune binary as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "process/gpu_list.h"
#include "run/runner.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "store/store.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

TEST(SearchEndToEnd, TransposeSpaceIsSearchedStoredAndNotMeasuredTwice) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  fs::path db = fs::temp_directory_path() / ("gputune_e2e_" + std::to_string(getpid()) + ".db");
  fs::remove(db);
  std::string spec = gputune::test::source_dir() + "/spaces/transpose.yaml";
  // A ragged size: tiles of 16, 32 and 64 all leave partial tiles at the edges.
  std::string args = "search " + spec + " --set n=2000 --json --top 1000 --db " + db.string();
  const int variants =
      static_cast<int>(Problem(load_spec(spec, {{"n", "2000"}})).space().count_valid());

  CommandResult first = run_gputune(args);
  ASSERT_EQ(first.exit_code, 0) << first.out;
  auto report = nlohmann::json::parse(first.out);
  const auto& counts = report["status_counts"];
  ASSERT_TRUE(counts.contains("ok"));
  EXPECT_EQ(counts["ok"].get<int>(), variants) << counts.dump();
  EXPECT_EQ(static_cast<int>(report["results"].size()), variants);
  EXPECT_GT(report["device"]["copy_bandwidth_gbs"].get<double>(), 100);
  for (const auto& row : report["results"]) {
    EXPECT_GT(row["samples"].get<int>(), 0);
    EXPECT_GT(row["registers"].get<int>(), 0) << row.dump();
  }

  auto store = open_sqlite_store(db.string(), true);
  auto workloads = store->workloads();
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(static_cast<int>(store->measured(workloads[0].id).size()), variants);

  CommandResult second = run_gputune(args);
  ASSERT_EQ(second.exit_code, 0) << second.out;
  auto again = nlohmann::json::parse(second.out);
  EXPECT_EQ(again["search"]["evaluated"].get<int>(), 0);
  EXPECT_EQ(again["search"]["reused"].get<int>(), variants);
  EXPECT_EQ(again["results"][0]["index"], report["results"][0]["index"])
      << "the best variant comes from the database";

  CommandResult best = run_gputune("best " + spec + " --set n=2000 --json --db " + db.string());
  ASSERT_EQ(best.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(best.out)[0]["best"]["config"], report["results"][0]["config"]);
  fs::remove(db);
}

}  // namespace
}  // namespace gputune
