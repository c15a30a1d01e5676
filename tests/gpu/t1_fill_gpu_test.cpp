// A T1 file of the test's own, run as a user would: its input from a Generator, its expected
// output from ReferenceArguments (a BinaryRaw file), and its check changed from the command
// line. The Default (the baseline) is wrong on purpose: only the reference can tell.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process/gpu_list.h"
#include "support/run_gputune.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

constexpr int kCount = 4096;

class T1FillGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
    dir_ = fs::temp_directory_path() / ("gputune_t1_fill_gpu_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "scale.cu")
        << "extern \"C\" __global__ void scale(float* out, const float* x, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = 2.0f * x[i] + BUG;\n}\n";
    std::vector<float> expected(kCount);
    for (int i = 0; i < kCount; ++i) expected[i] = 2.0f * (static_cast<float>(i % 13) * 0.25f);
    std::ofstream(dir_ / "expected.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(expected.data()),
               static_cast<std::streamsize>(expected.size() * sizeof(float)));
    std::ofstream(dir_ / "scale.json") << R"({
  "ConfigurationSpace": {"TuningParameters": [
    {"Name": "block_size_x", "Values": "[64, 128]", "Default": 64},
    {"Name": "BUG", "Values": "[0, 1]", "Default": 1}]},
  "KernelSpecification": {
    "Language": "CUDA", "KernelName": "scale", "KernelFile": "scale.cu",
    "ProblemSize": [4096], "GridDivX": ["block_size_x"], "LocalSize": {"X": "block_size_x"},
    "Arguments": [
      {"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector",
       "AccessType": "WriteOnly"},
      {"Name": "x", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector",
       "AccessType": "ReadOnly", "FillType": "Generator", "DataSource": "i % 13 * 0.25"},
      {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": "ProblemSize[0]"}],
    "ReferenceArguments": [{"Name": "out", "FillType": "BinaryRaw",
                            "DataSource": "expected.bin"}]}
})";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Status by BUG value of every variant a brute-force search measured, the baseline included.
  std::map<int, std::vector<std::string>> statuses(const std::string& flags) {
    const CommandResult r = run_gputune("search " + (dir_ / "scale.json").string() + " --db " +
                                        (dir_ / "results.db").string() +
                                        " --strategy brute_force --fast --json -q " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<int, std::vector<std::string>> out;
    const nlohmann::json json = nlohmann::json::parse(r.out);
    for (const char* key : {"results", "failed"}) {
      for (const auto& row : json.at(key)) {
        out[row.at("config").at("BUG").get<int>()].push_back(row.at("status"));
      }
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(T1FillGpu, TheReferenceArgumentsJudgeEveryVariantTheWrongBaselineIncluded) {
  const auto by_bug = statuses("");
  ASSERT_EQ(by_bug.at(0).size(), 2u);
  for (const std::string& status : by_bug.at(0)) EXPECT_EQ(status, "ok");
  for (const std::string& status : by_bug.at(1)) EXPECT_EQ(status, "wrong_answer");
}

TEST_F(T1FillGpu, CheckBaselineComparesWithTheWrongBaselineInstead) {
  const auto by_bug = statuses("--check baseline");
  for (const std::string& status : by_bug.at(0)) EXPECT_EQ(status, "wrong_answer");
  for (const std::string& status : by_bug.at(1)) EXPECT_EQ(status, "ok");
  const auto unchecked = statuses("--check none");
  for (const auto& [bug, list] : unchecked) {
    for (const std::string& status : list) EXPECT_EQ(status, "ok") << "BUG " << bug;
  }
}

}  // namespace
}  // namespace gputune
