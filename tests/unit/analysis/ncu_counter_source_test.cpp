// The ncu subprocess against fake ncu scripts: what a user reads when ncu is missing, refused,
// hangs or crashes, and counters when it answers.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "analysis/counter_source.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class NcuCounterSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_fake_ncu_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string fake_ncu(const std::string& body) {
    const fs::path path = dir_ / "ncu";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path.string();
  }

  static ProfileTarget target(double timeout_s = 20) {
    ProfileTarget t;
    t.command = {"/bin/true"};
    t.kernel = "transpose";
    t.metrics = {"gpu__time_duration.sum"};
    t.timeout_s = timeout_s;
    return t;
  }

  fs::path dir_;
};

TEST_F(NcuCounterSourceTest, AnswersWithTheCountersOfTheLaunch) {
  const std::string fixture = test::source_dir() + "/tests/fixtures/ncu/transpose_pad0.raw.csv";
  auto source =
      make_ncu_counter_source(fake_ncu("echo '==PROF== Connected'; cat '" + fixture + "'"));
  EXPECT_EQ(source->unavailable_reason(), "");
  const CounterResult result = source->profile(target());
  ASSERT_TRUE(result.ok) << result.message;
  EXPECT_FALSE(result.counters.values.empty());
  EXPECT_GT(result.counters.values.count("gpu__time_duration.sum"), 0u);
}

TEST_F(NcuCounterSourceTest, MissingNcuSaysWhereItLookedAndHowToPointAtIt) {
  auto source = make_ncu_counter_source((dir_ / "no-such-ncu").string());
  EXPECT_NE(source->unavailable_reason().find("not an executable file"), std::string::npos);
  const CounterResult result = source->profile(target());
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.unavailable);
  EXPECT_NE(result.message.find("GPUTUNE_NCU"), std::string::npos) << result.message;
}

TEST_F(NcuCounterSourceTest, NoPermissionNamesTheErrorAndTheFix) {
  auto source = make_ncu_counter_source(fake_ncu(
      "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
      "GPU Performance Counters on the target device 0.'; exit 1"));
  const CounterResult result = source->profile(target());
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.unavailable);
  EXPECT_NE(result.message.find("ERR_NVGPUCTRPERM"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
}

TEST_F(NcuCounterSourceTest, AHangIsKilledAtTheTimeout) {
  auto source = make_ncu_counter_source(fake_ncu("sleep 60"));
  const auto start = std::chrono::steady_clock::now();
  const CounterResult result = source->profile(target(1));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.unavailable);  // the next variant may well finish
  EXPECT_NE(result.message.find("did not finish within 1 s"), std::string::npos) << result.message;
}

TEST_F(NcuCounterSourceTest, ACrashSaysHowItEndedWithItsLastLines) {
  auto source = make_ncu_counter_source(fake_ncu("echo 'launching the variant'; kill -SEGV $$"));
  const CounterResult result = source->profile(target());
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.unavailable);
  EXPECT_NE(result.message.find("killed by signal 11"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("launching the variant"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("kernel transpose"), std::string::npos) << result.message;
}

TEST_F(NcuCounterSourceTest, AFailingExitWithoutCountersSaysItsStatus) {
  auto source =
      make_ncu_counter_source(fake_ncu("echo '==ERROR== the application crashed'; exit 3"));
  const CounterResult result = source->profile(target());
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.message.find("exited with 3"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("the application crashed"), std::string::npos);
}

}  // namespace
}  // namespace gputune
