// --check, --atol and --rtol change any spec's check from the command line, T1 files included:
// bad values are usage errors before anything compiles, and the report says what was checked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/add_t1.h"
#include "support/run_gputune.h"
#include "support/text.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

using testing::contains;

// A T1 file of our own: a kernel that adds one, its output checked as the file says.
class CheckCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_check_cli_" + std::to_string(getpid()));
    testing::write_add_t1(dir_, "[64, 128, 256]");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string t1() const { return (dir_ / "add.json").string(); }

  fs::path dir_;
};

TEST_F(CheckCli, BadValuesAreUsageErrorsBeforeAnythingCompiles) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--check maybe", "--check maybe: expected none"},
      {"--atol=-1", "--atol -1: expected a tolerance >= 0"},
      {"--rtol abc", "rtol"},
      {"--check none --rtol 1e-3", "nothing is compared"}};
  for (const auto& [flags, message] : cases) {
    const CommandResult r = run_gputune("search " + t1() + " --compile-only -q " + flags);
    EXPECT_EQ(r.exit_code, 64) << flags << ": " << r.err;
    EXPECT_TRUE(contains(r.err, message)) << flags << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << flags << ": " << r.out;
  }
}

TEST_F(CheckCli, AT1FilesCheckChangedFromTheCommandLineStillCompiles) {
  const CommandResult r =
      run_gputune("search " + t1() + " --compile-only -q --check baseline --rtol 1e-3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "3 variants compiled")) << r.out;
}

// A replay answers with the recorded statuses; its report still says which check was asked.
TEST_F(CheckCli, TheReportSaysWhichCheckWasAsked) {
  const std::string recordings = test::source_dir() + "/db/recordings/";
  const std::string replay = "search " + recordings + "spaces-f402b6b/spaces/transpose.yaml " +
                             "--set n=4096 --replay " + recordings +
                             "transpose_n_4096_NVIDIA_H200.csv --budget 5 --json -q ";
  CommandResult r = run_gputune(replay + "--check baseline --atol 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("check_override").at("given"), "--check baseline --atol 0.5");
  EXPECT_DOUBLE_EQ(json.at("check_override").at("atol").get<double>(), 0.5);
  r = run_gputune(replay + "--check none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("outputs_checked"), false);
  EXPECT_EQ(json.at("warning"), "outputs NOT checked (--check none)");
  r = run_gputune(replay);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out).contains("check_override"));
}

}  // namespace
}  // namespace gputune
