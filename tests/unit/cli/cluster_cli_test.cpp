// Campaigns beyond one machine from the command line: gputune plan, search --shard, merge.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/store.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::run_gputune;

class ClusterCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gputune_cluster_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  static std::string recording(const std::string& name) {
    return test::source_dir() + "/db/recordings/" + name;
  }

  fs::path dir_;
};

// What counts in a database: per workload, each config's latest attempt.
std::vector<std::string> counted_rows(const std::string& db) {
  auto store = open_sqlite_store(db, true);
  std::vector<std::string> rows;
  for (const WorkloadSummary& w : store->workloads()) {
    for (const Measurement& m : store->measured(w.id)) {
      std::string samples;
      for (double s : m.samples_ms) samples += std::to_string(s) + ",";
      rows.push_back(w.key.problem_json + " " + w.key.device.key() + " " +
                     std::to_string(m.config_index) + " " + m.config + " " +
                     std::string(status_name(m.status)) + " " + samples);
    }
  }
  return rows;
}

TEST_F(ClusterCli, MergedShardsHoldWhatOneSearchMeasured) {
  const std::string rec = recording("stencil_nx_4096_ny_4096_NVIDIA_H200.csv");
  const std::string common = "search --replay " + rec + " --strategy brute_force --budget none -q";
  // Shards time every variant in full (racing follows a best that a shard only knows of its own
  // part), so the one search they stand for does too.
  auto single = run_gputune(common + " --sampling full --db " + file("single.db"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  std::string shards;
  for (int k = 0; k < 3; ++k) {
    const std::string db = file("shard-" + std::to_string(k) + ".db");
    auto shard = run_gputune(common + " --shard " + std::to_string(k) + "/3 --db " + db);
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    shards += " " + db;
  }
  auto merged = run_gputune("merge " + file("all.db") + shards);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("merged into"), std::string::npos) << merged.out;
  const std::vector<std::string> expected = counted_rows(file("single.db"));
  EXPECT_GT(expected.size(), 100u);
  EXPECT_EQ(counted_rows(file("all.db")), expected);

  // Merging again changes nothing; a lost shard run again merges as if it never was lost.
  auto again = run_gputune("merge --json " + file("all.db") + shards);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  for (const auto& input : nlohmann::json::parse(again.out)) {
    EXPECT_EQ(input["attempts_copied"], 0) << again.out;
    EXPECT_EQ(input["workloads_added"], 0) << again.out;
  }
  fs::remove(file("shard-1.db"));
  ASSERT_EQ(run_gputune(common + " --shard 1/3 --db " + file("shard-1.db")).exit_code, 0);
  ASSERT_EQ(run_gputune("merge " + file("all.db") + " " + file("shard-1.db")).exit_code, 0);
  EXPECT_EQ(counted_rows(file("all.db")), expected);
}

TEST_F(ClusterCli, ShardsAreForBruteForce) {
  const std::string rec = recording("transpose_n_4096_NVIDIA_H200.csv");
  auto result = run_gputune("search --replay " + rec + " --strategy random --shard 0/2 -q");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--shard 0/2"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("brute_force"), std::string::npos) << result.err;
  result = run_gputune("search --replay " + rec + " --shard 2/2 -q");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("0 <= K < N"), std::string::npos) << result.err;
}

TEST_F(ClusterCli, PlanDealsWorkloadsToShardsDeterministically) {
  const std::string spec = test::source_dir() + "/spaces/transpose.yaml";
  const std::string args = "plan " + spec + " --sweep n=1024,2048,4096 --shards 2 --json";
  auto plan = run_gputune(args);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(run_gputune(args).out, plan.out);
  const auto shards = nlohmann::json::parse(plan.out);
  ASSERT_EQ(shards.size(), 2u);
  ASSERT_EQ(shards[0]["workloads"].size(), 2u);
  ASSERT_EQ(shards[1]["workloads"].size(), 1u);
  EXPECT_EQ(shards[0]["workloads"][1]["set"]["n"], "4096");
  EXPECT_EQ(shards[1]["db"], "shard-1.db");
  EXPECT_NE(shards[1]["commands"][0].get<std::string>().find("--set n=2048 --db shard-1.db"),
            std::string::npos)
      << plan.out;

  auto commands = run_gputune("plan " + spec + " --shards 4 --commands 3");
  ASSERT_EQ(commands.exit_code, 0) << commands.err;
  EXPECT_NE(commands.out.find("--strategy brute_force --budget none --shard 3/4 --db shard-3.db"),
            std::string::npos)
      << commands.out;

  // One space's shards between them hold every valid config once.
  auto split = run_gputune("plan " + spec + " --shards 3 --json");
  auto whole = run_gputune("plan " + spec + " --json");
  uint64_t sum = 0;
  for (const auto& shard : nlohmann::json::parse(split.out)) {
    sum += shard["workloads"][0]["configs"].get<uint64_t>();
  }
  EXPECT_EQ(sum, nlohmann::json::parse(whole.out)[0]["workloads"][0]["configs"].get<uint64_t>());

  auto bad = run_gputune("plan " + spec + " --shards 2 --commands 2");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--commands 2"), std::string::npos) << bad.err;
}

// A space of 199^4 (1.6x10^9) configs: plan, list, select and compile-only walked the whole
// product (minutes on 7.4x10^8), and plan said "0 configs" above 2^24. They answer at once,
// with estimated counts that say so.
TEST_F(ClusterCli, AHugeSpaceIsCountedFromASampleNotWalked) {
  std::string values;
  for (int v = 1; v < 200; ++v) values += (values.empty() ? "" : ", ") + std::to_string(v);
  fs::create_directories(dir_ / "spaces");
  const std::string spec = file("spaces/huge.yaml");
  std::ofstream(spec) << "kernel: {source: " << test::source_dir()
                      << "/kernels/transpose.cu, name: transpose}\n"
                         "problem: {n: 64}\n"
                         "arguments:\n"
                         "  - {name: out, type: float32, count: n * n, output: true}\n"
                         "  - {name: in, type: float32, count: n * n}\n"
                         "  - {name: n, type: int32, value: n}\n"
                         "launch: {block: [8, 8], grid: [1, 1]}\n"
                         "parameters: {A: ["
                      << values << "], B: [" << values << "], C: [" << values << "], D: [" << values
                      << "]}\nconstraints: [A % 2 == 0]\n";
  const auto start = std::chrono::steady_clock::now();
  const auto plan = run_gputune("plan " + spec + " --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto workload = nlohmann::json::parse(plan.out)[0]["workloads"][0];
  // Half of 199^4 keeps A % 2 == 0 (99 of 199 values).
  EXPECT_NEAR(workload["configs"].get<double>() / (99.0 * 199 * 199 * 199), 1.0, 0.05) << plan.out;
  EXPECT_TRUE(workload.value("configs_estimated", false)) << plan.out;
  const auto listed = testing::run_command("env GPUTUNE_SPACES=" + file("spaces") + " " +
                                           test::gputune_binary() + " list --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  bool found = false;
  for (const auto& row : nlohmann::json::parse(listed.out)) {
    if (row["name"] != "huge") continue;
    found = true;
    EXPECT_TRUE(row.value("variants_estimated", false)) << row.dump();
  }
  EXPECT_TRUE(found) << listed.out;
  const auto selected = run_gputune("select " + spec + " --db " + file("none.db") +
                                    " --device-name 'NVIDIA H100' --cc 9.0 --sm-count 132");
  EXPECT_EQ(selected.exit_code, 0) << selected.err;
  // compile-only asks for a budget before compiling so many, without counting them one by one.
  const auto unasked = run_gputune("search " + spec + " --compile-only --arch sm_90");
  EXPECT_EQ(unasked.exit_code, 64) << unasked.err;
  EXPECT_NE(unasked.err.find("about "), std::string::npos) << unasked.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  const auto first = run_gputune("search " + spec + " --compile-only --arch sm_90 --budget 2 -j 2");
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("2 variants compiled for sm_90"), std::string::npos) << first.out;
}

}  // namespace
}  // namespace gputune
