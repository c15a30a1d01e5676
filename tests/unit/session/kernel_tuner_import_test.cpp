#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "gputune/session.h"
#include "search/prior.h"
#include "space/problem.h"
#include "store/store.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string formats(const std::string& name) {
  return test::source_dir() + "/tests/formats/" + name;
}

class KernelTunerImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_kt_import_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    db_ = (dir_ / "prior.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string db_;
};

TEST_F(KernelTunerImport, CacheFileBecomesPriorDataOfTheKernel) {
  const Spec spec = open_spec(formats("scaled_sum.json"));
  const PriorImport imported = import_kernel_tuner(formats("kt_cache.json"), spec, db_);
  EXPECT_EQ(imported.ok, 3);
  EXPECT_EQ(imported.failures, 1);
  EXPECT_EQ(imported.outside, 2);  // TILE=3 is no value of the spec; 256x8 breaks its condition
  EXPECT_TRUE(imported.defaulted.empty());

  // What a model search of the same kernel, at other problem values, starts from.
  const Problem other(open_spec(formats("scaled_sum.json"), {{"ProblemSize_0", "1048576"}}));
  auto store = open_sqlite_store(db_, true);
  const std::vector<PriorData> prior =
      prior_from_store(*store, /*workload=*/-1, prior_key(other));
  ASSERT_EQ(prior.size(), 1u);
  EXPECT_NE(prior[0].label.find("NVIDIA A100-PCIE-40GB"), std::string::npos);
  ASSERT_EQ(prior[0].problem_values.size(), 1u);
  EXPECT_EQ(prior[0].problem_values[0].second, 65536);
  ASSERT_EQ(prior[0].measurements.size(), 4u);
  int ok = 0;
  for (const Measurement& m : prior[0].measurements) {
    EXPECT_EQ(m.config, other.space().json(m.config_index));
    if (m.config == R"({"block_size_x":32,"TILE":1})") {
      EXPECT_EQ(m.samples_ms, (std::vector<double>{0.050, 0.051, 0.053}));
      EXPECT_DOUBLE_EQ(m.compile_ms, 310.2);
    }
    if (m.config == R"({"block_size_x":256,"TILE":4})") {
      EXPECT_EQ(m.status, Status::kCompileError);
    }
    ok += m.status == Status::kOk;
  }
  EXPECT_EQ(ok, 3);
  // The import is a workload of its own, never the one a search on that GPU would reuse.
  const auto workloads = stored_workloads(db_, spec);
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads[0].nvrtc_version, "imported from Kernel Tuner");
  EXPECT_EQ(workloads[0].best->config, R"({"block_size_x":128,"TILE":4})");
}

TEST_F(KernelTunerImport, StoreResultsOutput) {
  std::ofstream(dir_ / "results.json")
      << R"({"NVIDIA-H100": {"65536": [{"block_size_x": 64, "TILE": 2, "time": 0.02},
                                       {"block_size_x": 96, "TILE": 1, "time": 0.03}]}})";
  const Spec spec = open_spec(formats("scaled_sum.json"));
  const PriorImport imported = import_kernel_tuner((dir_ / "results.json").string(), spec, db_);
  EXPECT_EQ(imported.ok, 2);
  EXPECT_EQ(stored_workloads(db_, spec)[0].device.name, "NVIDIA-H100");
}

TEST_F(KernelTunerImport, ParametersTheSpecLacksAreRefused) {
  std::ofstream(dir_ / "cache.json")
      << R"({"device_name": "GPU", "tune_params": {"block_size_x": [32], "UNROLL": [1, 2]},
             "cache": {"32,1": {"block_size_x": 32, "UNROLL": 1, "time": 1.0}}})";
  const Spec spec = open_spec(formats("scaled_sum.json"));
  try {
    import_kernel_tuner((dir_ / "cache.json").string(), spec, db_);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'UNROLL'"), std::string::npos) << e.what();
  }
}

// What the import refuses, each an error of the data (exit 65) naming the file and the reason:
// before, another kernel's or problem's results, negative times and fields of the wrong type
// were stored (or ended in an internal error).
TEST_F(KernelTunerImport, ResultsThatAreNotThisKernelsMeasurementsAreRefused) {
  const Spec spec = open_spec(formats("scaled_sum.json"));
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(dir_ / "bad.json") << text;
    try {
      import_kernel_tuner((dir_ / "bad.json").string(), spec, db_);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kSpec) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "imported: " << text;
    return "";
  };
  const std::string result = R"("cache": {"64,2": {"block_size_x": 64, "TILE": 2, "time": 0.03}})";
  EXPECT_NE(error_of(R"({"kernel_name": "other_kernel", )" + result + "}").find("'other_kernel'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"problem_size": [1024], )" + result + "}").find("problem size [1024]"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cache": {"64,2": {"block_size_x": 64, "TILE": 2, "time": -1}}})")
                .find("'time'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cache": {"64,2": {"block_size_x": 64, "TILE": 2, "time": 1,
                                             "times": [1, 0]}}})")
                .find("'times'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cache": {"64,2": {"block_size_x": 64, "TILE": 2, "time": 1e999}}})")
                .find("invalid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"device_name": 7, )" + result + "}").find("'device_name'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cache": {"64,2": {"block_size_x": 64, "TILE": 2, "time": 1,
                                             "compile_time": "slow"}}})")
                .find("'compile_time'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cache": 3})").find("'cache'"), std::string::npos);
  EXPECT_NE(error_of(R"([1, 2])").find("JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"GPU": {"1024": [{"block_size_x": 64, "TILE": 2, "time": 0.02}]}})")
                .find("other problem sizes"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(KernelTunerImport, StoreResultsOfOtherProblemSizesAreLeftOut) {
  std::ofstream(dir_ / "results.json")
      << R"({"GPU": {"65536": [{"block_size_x": 64, "TILE": 2, "time": 0.02}],
                     "1024": [{"block_size_x": 96, "TILE": 1, "time": 0.03}]}})";
  const Spec spec = open_spec(formats("scaled_sum.json"));
  const PriorImport imported = import_kernel_tuner((dir_ / "results.json").string(), spec, db_);
  EXPECT_EQ(imported.ok, 1);
}

}  // namespace
}  // namespace gputune
