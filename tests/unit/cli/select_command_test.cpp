// `gputune select` through the binary, on a release file written table by table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gputune/session.h"
#include "support/release_writer.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::run_gputune;

const char kTransposeSpec[] = R"json({"problem": {"n": 8192},
  "parameters": {"TILE": [16, 32, 64], "VEC": [1, 2, 4], "MERGE_Y": [1, 2, 4, 8]},
  "constraints": ["TILE % MERGE_Y == 0"],
  "launch": [{"kernel": "transpose", "block": ["TILE / VEC", "TILE / MERGE_Y"],
              "grid": ["ceil(n / TILE)", "ceil(n / TILE)"]}],
  "baseline": {"TILE": 32, "VEC": 1, "MERGE_Y": 1}})json";

class SelectCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = (fs::temp_directory_path() /
             ("gputune_select_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".gtrel"))
                .string();
    const Spec spec = open_spec(test::source_dir() + "/spaces/transpose.yaml");
    testing::ReleaseWriter w(file_);
    const int64_t k = w.kernel("transpose", kTransposeSpec, spec.source_hash());
    const int64_t d = w.device("NVIDIA H100", 9, 0, 132);
    w.config(k, R"({"MERGE_Y":1,"TILE":32,"VEC":1})", true);
    w.choice(k, d, R"({"n":4096})", 0, w.config(k, R"({"MERGE_Y":4,"TILE":64,"VEC":4})"), 0.1);
  }
  void TearDown() override { fs::remove(file_); }
  std::string file_;
};

const char kH100[] = " --device-name 'NVIDIA H100' --cc 9.0 --sm-count 132";

TEST_F(SelectCommandTest, ExplainsTheTierForASpecAtAnUntunedSize) {
  const auto r = run_gputune("select " + test::source_dir() + "/spaces/transpose.yaml" +
                             " --set n=6000 --db " + file_ + kH100 + " --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("transpose: nearest_problem from " + file_), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("TILE=64, VEC=4, MERGE_Y=4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grid (94, 94, 1) block (16, 16, 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact: "), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(SelectCommandTest, JsonForAKernelName) {
  const auto r = run_gputune("select transpose --set n=4096 --db " + file_ + kH100 + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["tier"], "exact");
  EXPECT_EQ(json["config"]["TILE"], 64);
  EXPECT_EQ(json["predicted_ms"], 0.1);
  EXPECT_EQ(json["layer"], file_);
}

TEST_F(SelectCommandTest, BadInputIsAWarningUnlessStrict) {
  const auto r = run_gputune("select transpose --db /nonexistent.gtrel" + std::string(kH100));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: release database /nonexistent.gtrel: not found"),
            std::string::npos)
      << r.err;
  const auto strict =
      run_gputune("select transpose --strict --db /nonexistent.gtrel" + std::string(kH100));
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_NE(strict.err.find("not found"), std::string::npos) << strict.err;
}

// The release file holds transpose tuned on another source (the kernel was edited since): the
// answer is the default, and the output says why instead of "no release database holds it".
TEST_F(SelectCommandTest, AKernelTunedOnAnotherSourceIsNamedAsTheCause) {
  const fs::path dir = fs::path(file_).parent_path() / ("edited_" + std::to_string(::getpid()));
  fs::create_directories(dir / "spaces");
  fs::copy_file(test::source_dir() + "/spaces/transpose.yaml", dir / "spaces" / "transpose.yaml");
  fs::copy(test::source_dir() + "/kernels", dir / "kernels", fs::copy_options::recursive);
  std::ofstream(dir / "kernels" / "transpose.cu", std::ios::app) << "// edited\n";
  const auto r = run_gputune("select " + (dir / "spaces" / "transpose.yaml").string() +
                             " --set n=4096 --db " + file_ + kH100);
  fs::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("config: (none: no release database holds kernel 'transpose' tuned on the "
                       "application's source"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(file_ + " (source hash "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rebuild the release database"), std::string::npos) << r.out;
}

// A spec that cannot be read is an error, not a kernel name that no file knows (exit 0 with
// the default, before).
TEST_F(SelectCommandTest, AMissingOrBrokenSpecIsAnError) {
  const auto missing = run_gputune("select /nonexistent/mine.yaml --db " + file_ + kH100);
  EXPECT_EQ(missing.exit_code, 74) << missing.out;
  EXPECT_NE(missing.err.find("/nonexistent/mine.yaml"), std::string::npos) << missing.err;
  const std::string broken = file_ + ".yaml";
  std::ofstream(broken) << "kernel: [unclosed\n";
  const auto bad = run_gputune("select " + broken + " --db " + file_ + kH100);
  fs::remove(broken);
  EXPECT_EQ(bad.exit_code, 65) << bad.out;
  EXPECT_NE(bad.err.find(broken), std::string::npos) << bad.err;
  const auto name = run_gputune("select my_kernel --db " + file_ + kH100);
  EXPECT_EQ(name.exit_code, 0) << name.err;
  EXPECT_NE(name.out.find("my_kernel: default"), std::string::npos) << name.out;
}

TEST_F(SelectCommandTest, APartialDeviceDescriptionNamesWhatIsMissing) {
  const auto r = run_gputune("select transpose --db " + file_ + " --device-name X");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--device-name, --cc and --sm-count together"), std::string::npos) << r.err;
  const auto help = run_gputune("select --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--sm-count"), std::string::npos);
}

}  // namespace
}  // namespace gputune
