// The rules' pick on the command line: `gputune transforms` prints it, and every search of a
// spec with engine knobs measures it first after the baseline, its report naming the rule behind
// each knob; `--strategy rules` searches around it. Replays of the H200 recording of the naive
// transpose's whole space (db/recordings/engine).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::run_gputune;

const std::string kEngine = test::source_dir() + "/db/recordings/engine/";
const std::string kSpec = kEngine + "bench-0d2cdf2/transpose.yaml";
const std::string kRecording = kEngine + "transpose_rows_16384_cols_16384_NVIDIA_H200.csv";

class RulesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = (fs::temp_directory_path() /
           ("gputune_rules_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db"))
              .string();
    fs::remove(db_);
  }
  void TearDown() override { fs::remove(db_); }
  std::string db_;
};

TEST_F(RulesCli, TransformsPrintsThePickAndTheRuleBehindEachKnob) {
  const auto text = run_gputune("transforms " + kSpec);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\nthe rules' pick (every strategy's first variant): block_merge_x=1 "
                          "merge_layout=strided pad_shared=1 stage_shared=1 thread_merge_x=1 "
                          "thread_merge_y=1\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("  stage_shared=1: " + kSpec.substr(0, kSpec.size() - 4) +
                          "cu:7:5 out[x * rows + y]: stage_shared stages it"),
            std::string::npos)
      << text.out;
  const auto json = run_gputune("transforms " + kSpec + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  EXPECT_EQ(report["rule_pick_config"]["stage_shared"], 1);
  EXPECT_EQ(report["rule_pick"]["pad_shared"].get<std::string>().rfind("1: gputune_out_tile", 0),
            0u)
      << report["rule_pick"].dump();
}

TEST_F(RulesCli, EveryStrategyMeasuresThePickFirstAndTheReportSaysWhy) {
  for (const char* strategy : {"random", "model", "brute_force", "rules"}) {
    fs::remove(db_);
    // One evaluation beyond the baseline: the pick.
    const auto result = run_gputune("search " + kSpec + " --replay " + kRecording + " --strategy " +
                                    strategy + " --budget 1 --db " + db_ + " --json");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const nlohmann::json report = nlohmann::json::parse(result.out);
    ASSERT_TRUE(report.contains("rule_pick_config")) << strategy;
    const nlohmann::json& pick = report["rule_pick_config"];
    bool measured = false;
    for (const nlohmann::json& row : report["results"]) measured |= row["config"] == pick;
    EXPECT_TRUE(measured) << strategy << ": " << report["results"].dump();
    EXPECT_EQ(report["results"].size(), 2u) << strategy;  // the baseline and the pick
    EXPECT_TRUE(report["rule_pick"].contains("stage_shared")) << strategy;
  }
}

TEST_F(RulesCli, TheRulesStrategyReportsThePickItStartedFrom) {
  const auto result = run_gputune("search " + kSpec + " --replay " + kRecording +
                                  " --strategy rules --budget 20 --db " + db_);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("rule pick (proposed first): "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("search: rules, "), std::string::npos) << result.out;
}

}  // namespace
}  // namespace gputune
