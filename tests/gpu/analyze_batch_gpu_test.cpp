// `gputune analyze --top 5` on a GPU: a small measured transpose space, five variants profiled
// in two ncu runs (--batch 3) over one launcher each, their counters stored. Skips visibly
// without a GPU or when ncu cannot read the counters. About a minute.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "process/gpu_list.h"
#include "support/run_gputune.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(AnalyzeBatchGpu, TopFiveOfAMeasuredSpaceAreProfiledAndStored) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  const fs::path db =
      fs::temp_directory_path() / ("gputune_analyze_batch_" + std::to_string(getpid()) + ".db");
  fs::remove(db);
  // Full sampling: --top takes fully measured variants only, and racing may cut most of 12.
  const testing::CommandResult searched = testing::run_gputune(
      "search transpose --set n=1024 --strategy random --seed 1 --budget 12 --fast --quiet "
      "--sampling full --top 1 --db " +
      db.string());
  ASSERT_EQ(searched.exit_code, 0) << searched.out << searched.err;

  const testing::CommandResult r = testing::run_gputune(
      "analyze transpose --set n=1024 --top 5 --batch 3 --timeout 60 --json --db " + db.string());
  std::cout << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(out.is_discarded()) << r.exit_code << "\n" << r.out << r.err;
  const std::string unavailable = out["unavailable"].get<std::string>();
  if (unavailable.find("ERR_NVGPUCTRPERM") != std::string::npos ||
      unavailable.find("not found") != std::string::npos) {
    GTEST_SKIP() << unavailable;
  }
  EXPECT_EQ(out["requested"], 5);
  EXPECT_EQ(out["profiled"], 5) << out.dump(2);
  EXPECT_EQ(out["batches"], 2);
  for (const auto& variant : out["variants"]) {
    EXPECT_TRUE(variant["profiled"].get<bool>()) << variant["message"];
    EXPECT_TRUE(variant["stored"].get<bool>());
    EXPECT_GT(variant["counters"].value("gpu__time_duration.sum", 0.0), 0) << variant.dump();
    std::cout << "[ analyze  ] " << variant["config"].dump() << ": " << variant["step"] << ", "
              << variant["key_number"] << "\n";
  }

  // Again in one batch: the modules now come from the cache, and the counters replace those stored.
  const testing::CommandResult again = testing::run_gputune(
      "analyze transpose --set n=1024 --top 5 --batch 5 --timeout 60 --json --db " + db.string());
  const nlohmann::json second = nlohmann::json::parse(again.out, nullptr, false);
  ASSERT_FALSE(second.is_discarded()) << again.out << again.err;
  EXPECT_EQ(second["batches"], 1);
  EXPECT_EQ(second["profiled"], 5);
  EXPECT_EQ(second["compile_cached"], 5);

  // Resuming: --unprofiled leaves out the five with counters and takes the next two.
  const testing::CommandResult rest = testing::run_gputune(
      "analyze transpose --set n=1024 --top 2 --unprofiled --timeout 60 --json --db " +
      db.string());
  const nlohmann::json third = nlohmann::json::parse(rest.out, nullptr, false);
  ASSERT_FALSE(third.is_discarded()) << rest.out << rest.err;
  EXPECT_EQ(third["already_profiled"], 5);
  EXPECT_EQ(third["profiled"], 2);
  fs::remove(db);
}

}  // namespace
}  // namespace gputune
