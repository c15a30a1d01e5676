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
  const std::vector<PriorData> prior = prior_from_store(*store, /*workload=*/-1, prior_key(other));
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

// Importing the same file again (a script run twice) must not store every row twice: the model
// would count each result twice and `show` would list two attempts of each.
TEST_F(KernelTunerImport, ImportingTwiceStoresNothingNew) {
  const Spec spec = open_spec(formats("scaled_sum.json"));
  import_kernel_tuner(formats("kt_cache.json"), spec, db_);
  const PriorImport again = import_kernel_tuner(formats("kt_cache.json"), spec, db_);
  EXPECT_EQ(again.ok, 0);
  EXPECT_EQ(again.failures, 0);
  EXPECT_EQ(again.unchanged, 4);
  const auto workloads = stored_workloads(db_, spec);
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads[0].attempts, 4);
  // A result that changed (the file re-tuned) is stored as a new attempt.
  std::ifstream in(formats("kt_cache.json"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text.replace(text.find("\"time\": 0.029"), 13, "\"time\": 0.027");
  std::ofstream(dir_ / "retuned.json") << text;
  const PriorImport retuned = import_kernel_tuner((dir_ / "retuned.json").string(), spec, db_);
  EXPECT_EQ(retuned.ok, 1);
  EXPECT_EQ(retuned.unchanged, 3);
  EXPECT_EQ(stored_workloads(db_, spec)[0].attempts, 5);
}

// Release compiles for the GPU's compute capability and needs its SM count: given as options,
// or read from Kernel Tuner's environment in the file; without them, prior data only.
TEST_F(KernelTunerImport, TheGpusComputeCapabilityAndSmCountAreStored) {
  const Spec spec = open_spec(formats("scaled_sum.json"));
  const PriorImport bare = import_kernel_tuner(formats("kt_cache.json"), spec, db_);
  EXPECT_FALSE(bare.releasable());
  const PriorImport told = import_kernel_tuner(formats("kt_cache.json"), spec, db_, {8, 0, 108});
  EXPECT_TRUE(told.releasable());
  EXPECT_NE(told.workload, bare.workload);  // another GPU as the store keys it
  EXPECT_EQ(told.unchanged, 0);
  bool found = false;
  for (const WorkloadInfo& w : stored_workloads(db_, spec)) {
    if (w.id != told.workload) continue;
    found = true;
    EXPECT_EQ(w.device.cc_major, 8);
    EXPECT_EQ(w.device.cc_minor, 0);
    EXPECT_EQ(w.device.sm_count, 108);
  }
  EXPECT_TRUE(found);

  std::ifstream in(formats("kt_cache.json"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string with_env =
      "{\n  \"env\": {\"compute_capability\": \"86\", "
      "\"device_properties\": {\"MULTIPROCESSOR_COUNT\": 84}},";
  std::ofstream(dir_ / "env.json") << with_env << text.substr(text.find('{') + 1);
  const PriorImport from_file =
      import_kernel_tuner((dir_ / "env.json").string(), spec, (dir_ / "env.db").string());
  EXPECT_EQ(from_file.device.cc_major, 8);
  EXPECT_EQ(from_file.device.cc_minor, 6);
  EXPECT_EQ(from_file.device.sm_count, 84);
  // An option overrides the file.
  EXPECT_EQ(import_kernel_tuner((dir_ / "env.json").string(), spec, (dir_ / "env.db").string(),
                                {9, 0, 132})
                .device.sm_count,
            132);

  std::ofstream(dir_ / "bad.json")
      << "{\"compute_capability\": \"fast\"," << text.substr(text.find('{') + 1);
  try {
    import_kernel_tuner((dir_ / "bad.json").string(), spec, (dir_ / "bad.db").string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    EXPECT_NE(std::string(e.what()).find("is no compute capability"), std::string::npos)
        << e.what();
  }
}

TEST(ComputeCapability, Parses) {
  EXPECT_EQ(parse_compute_capability("9.0"), std::make_pair(9, 0));
  EXPECT_EQ(parse_compute_capability("8.6"), std::make_pair(8, 6));
  EXPECT_EQ(parse_compute_capability("9"), std::make_pair(9, 0));
  for (const char* bad : {"", "sm_90", "9.", "9.0.1", "x", "-1.0", "9.10", "0.0", ".5"}) {
    EXPECT_FALSE(parse_compute_capability(bad).has_value()) << bad;
  }
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
