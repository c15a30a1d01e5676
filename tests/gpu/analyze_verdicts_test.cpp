// `gputune analyze` on an H100 or H200: the bottleneck method's verdicts on kernels whose
// bottleneck is known (docs/bottleneck.md), with each counter source: ncu and CUPTI's range
// profiler in a GPU worker. Skips visibly without a GPU or when the source cannot read the
// counters (not installed, no permission).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "process/gpu_list.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class AnalyzeVerdicts : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
    db_ = fs::temp_directory_path() / ("gputune_analyze_" + std::to_string(getpid()) + ".db");
  }
  void TearDown() override { fs::remove(db_); }

  // The analysis as JSON, or a skip when ncu cannot profile here.
  nlohmann::json analyze(const std::string& args) {
    const testing::CommandResult r =
        testing::run_gputune("analyze " + args + " --profiler " + GetParam() +
                             " --json --timeout 300 --db " + db_.string());
    nlohmann::json out = nlohmann::json::parse(r.out, nullptr, false);
    if (out.is_discarded()) {
      ADD_FAILURE() << "gputune analyze " << args << " exited " << r.exit_code << " without JSON:\n"
                    << r.out << r.err;
      return {};
    }
    if (!out["profiled"].get<bool>()) {
      const std::string message = out["message"].get<std::string>();
      if (message.find("ERR_NVGPUCTRPERM") != std::string::npos ||
          message.find("no permission") != std::string::npos ||
          message.find("not found") != std::string::npos ||
          message.find("not an executable") != std::string::npos) {
        skipped_ = message;
        return {};
      }
      ADD_FAILURE() << "gputune analyze " << args << ": " << message;
      return {};
    }
    std::cout << "[ analyze  ] " << GetParam() << " " << args << " ("
              << out["profile_s"].get<double>() << " s): " << out["step"].get<std::string>() << ": "
              << out["verdict"].get<std::string>() << "\n";
    return out;
  }

  static bool knob(const nlohmann::json& out, const std::string& remedy, const std::string& name) {
    for (const auto& entry : out["knobs"]) {
      if (entry[0] == remedy) {
        const auto& knobs = entry[1];
        return std::find(knobs.begin(), knobs.end(), name) != knobs.end();
      }
    }
    return false;
  }

  static double counter(const nlohmann::json& out, const std::string& metric) {
    return out["counters"].contains(metric) ? out["counters"][metric].get<double>() : -1;
  }

  fs::path db_;
  std::string skipped_;
};

#define ANALYZE_OR_SKIP(out, args)                 \
  const nlohmann::json out = analyze(args);        \
  if (!skipped_.empty()) GTEST_SKIP() << skipped_; \
  ASSERT_FALSE(out.is_null())

TEST_P(AnalyzeVerdicts, CopyIsMemoryBoundAtEightyPercentOfDramPeakOrMore) {
  ANALYZE_OR_SKIP(out, test::source_dir() + "/tests/gpu/copy.yaml --baseline");
  EXPECT_EQ(out["step"], "global memory");
  EXPECT_EQ(out["verdict"].get<std::string>().rfind("memory bound", 0), 0u) << out["verdict"];
  EXPECT_GE(counter(out, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), 80);
}

TEST_P(AnalyzeVerdicts, TransposeStagedWithoutPaddingHasBankConflictsAndPaddingIsTheRemedy) {
  ANALYZE_OR_SKIP(out, "transpose --config SHARED=1,TILE=32,PAD=0");
  EXPECT_EQ(out["step"], "shared memory") << out["verdict"];
  EXPECT_TRUE(knob(out, "padding", "PAD")) << out["knobs"].dump();
}

TEST_P(AnalyzeVerdicts, BestSgemmIsInstructionBound) {
  ANALYZE_OR_SKIP(out,
                  "sgemm --config BM=128,BN=256,BK=16,TM=8,TN=16,WX=16,ASYNC=0,STAGES=2,PAD=4,"
                  "UNROLL=16");
  EXPECT_EQ(out["step"], "instructions") << out["verdict"];
}

// The issue expected the naive SGEMM in the global-memory step. The counters captured on an
// H100 (tests/fixtures/ncu/sgemm_naive.raw.csv, docs/bottleneck.md) say otherwise: it stages
// its tiles through shared memory, keeps every warp slot busy (achieved occupancy far above
// the required) and reads DRAM at under 5% of peak, so the method finds no global-memory
// bottleneck; its LSU pipe sits at the instruction threshold (69% against 70%), so the
// verdict is latency (none of the four) or, by a hair, instructions. The test asserts what
// the method says and records the verdict.
TEST_P(AnalyzeVerdicts, SgemmBaselineIsNotGlobalMemoryBoundAsTheCountersShow) {
  ANALYZE_OR_SKIP(out, "sgemm --baseline");
  RecordProperty("sgemm_baseline_step", out["step"].get<std::string>());
  RecordProperty("sgemm_baseline_verdict", out["verdict"].get<std::string>());
  const std::string step = out["step"];
  EXPECT_TRUE(step == "latency" || step == "instructions") << step << ": " << out["verdict"];
  EXPECT_LT(counter(out, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), 80);
}

INSTANTIATE_TEST_SUITE_P(Profilers, AnalyzeVerdicts, ::testing::Values("ncu", "cupti"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gputune
