// Exit codes and messages that must tell the truth: bad --jobs and --arch are usage errors
// before anything compiles, and a compile-only run stopped by Ctrl-C exits 130 and says so.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/run_gputune.h"
#include "support/text.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

using testing::contains;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A folder with a one-line kernel and a spec of `values` x `values` variants; `body` is the
// kernel's statement, so a test can make every variant fail the same way.
class TempSpec {
 public:
  TempSpec(int values, const std::string& body) {
    dir_ = fs::temp_directory_path() /
           ("gputune_exits_" + std::to_string(getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void scale(float* out, int n) {\n"
                                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "  if (i < n) "
                                 << body << "\n}\n";
    std::string list;
    for (int v = 0; v < values; ++v) list += (v ? ", " : "") + std::to_string(v);
    std::ofstream(dir_ / "spec.yaml") << "kernel: {source: k.cu, name: scale}\n"
                                         "problem: {n: 1024}\n"
                                         "arguments:\n"
                                         "  - {name: out, type: float32, count: n, output: true}\n"
                                         "  - {name: n, type: int32, value: n}\n"
                                         "launch: {block: [128], grid: [n / 128]}\n"
                                         "parameters: {A: ["
                                      << list << "], B: [" << list << "]}\n";
  }
  ~TempSpec() { fs::remove_all(dir_); }
  std::string spec() const { return (dir_ / "spec.yaml").string(); }
  fs::path dir() const { return dir_; }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
};

TEST(CliExits, BadJobsIsAUsageErrorForEveryCommandThatTakesIt) {
  for (const char* jobs : {"-1", "0", "two", "1e3", "100000"}) {
    for (const std::string command : {"search transpose --compile-only", "release x.db -o x.gtrel",
                                      "analyze transpose --all"}) {
      CommandResult r = run_gputune(command + " --jobs " + jobs);
      EXPECT_EQ(r.exit_code, 64) << command << " --jobs " << jobs << ": " << r.err;
      EXPECT_TRUE(contains(r.err, std::string("--jobs ") + jobs + ": expected a number"))
          << command << ": " << r.err;
      EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;  // nothing compiled, nothing reported
    }
  }
}

TEST(CliExits, BadArchIsOneUsageErrorNamingWhatNvrtcSupports) {
  for (const char* arch : {"90", "sm_999", "sm90", "compute_1"}) {
    CommandResult r = run_gputune(std::string("search transpose --compile-only -q --arch ") + arch);
    EXPECT_EQ(r.exit_code, 64) << arch << ": " << r.err;
    EXPECT_TRUE(contains(r.err, std::string("--arch ") + arch + ": expected an architecture NVRTC"))
        << r.err;
    EXPECT_TRUE(contains(r.err, "sm_90")) << r.err;  // the list of what it does support
    EXPECT_TRUE(r.out.empty()) << r.out;             // no variant was compiled
  }
  CommandResult embed = run_gputune("release x.db -o x.gtrel --embed sm_90,sm_999");
  EXPECT_EQ(embed.exit_code, 64) << embed.err;
  EXPECT_TRUE(contains(embed.err, "--embed sm_999: expected an architecture NVRTC")) << embed.err;
  // The architectures NVRTC supports besides the default still pass the check.
  TempSpec small(2, "out[i] = out[i] * (A + B);");
  CommandResult virtual_arch =
      run_gputune("search " + small.spec() + " --compile-only -q --no-cache --arch compute_90");
  EXPECT_EQ(virtual_arch.exit_code, 0) << virtual_arch.err;
  EXPECT_TRUE(contains(virtual_arch.out, "4 variants compiled for compute_90, 0 failed"))
      << virtual_arch.out;
}

TEST(CliExits, CtrlCDuringCompileOnlyExits130AndSaysSo) {
  TempSpec spec(60, "out[i] = out[i] * (A + B);");  // 3600 variants: far from done when stopped
  const fs::path out_file = spec.dir() / "out.txt", err_file = spec.dir() / "err.txt";
  const std::string binary = test::gputune_binary();
  const std::string cache = (spec.dir() / "cache").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execl(binary.c_str(), binary.c_str(), "search", spec.spec().c_str(), "--compile-only", "--jobs",
          "1", "--cache-dir", cache.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // The first progress line comes after the first variant compiled: then the run is under way.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (read_text(err_file).find("\n") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << read_text(err_file);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_text(out_file) << read_text(err_file);
  const std::string out = read_text(out_file);
  EXPECT_TRUE(contains(out, "interrupted: ")) << out;
  EXPECT_TRUE(contains(out, " of 3600 variants compiled for sm_90 before the stop")) << out;
  EXPECT_FALSE(contains(out, "3600 variants compiled for sm_90, 0 failed")) << out;
}

TEST(CliExits, IdenticalCompileErrorsAreSummarisedOnce) {
  // A macro the spec does not define: every one of the 25 variants fails alike.
  TempSpec spec(5, "out[i] = out[i] * (A + B + UNDEFINED_SCALE);");
  CommandResult r = run_gputune("search " + spec.spec() + " --compile-only -q --no-cache");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "compile error, the same in 25 variants (the first A=0 B=0): "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "UNDEFINED_SCALE")) << r.out;
  size_t lines = 0;
  for (size_t at = r.out.find("compile error"); at != std::string::npos;
       at = r.out.find("compile error", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << r.out;
  EXPECT_TRUE(contains(r.out, "25 variants compiled for sm_90, 25 failed")) << r.out;
  // --json keeps every failure: it is data, not a message.
  CommandResult json = run_gputune("search " + spec.spec() + " --compile-only -q --json");
  EXPECT_EQ(json.exit_code, 1) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["failures"].size(), 25u);
}

TEST(CliExits, CompileOnlyFollowsTheBudgetAndRefusesAStrategyThatNeedsMeasurements) {
  TempSpec spec(5, "out[i] = out[i] * (A + B);");
  CommandResult some = run_gputune("search " + spec.spec() + " --compile-only -q --budget 7");
  EXPECT_EQ(some.exit_code, 0) << some.err;
  EXPECT_TRUE(contains(some.out, "7 variants compiled for sm_90, 0 failed")) << some.out;
  CommandResult model =
      run_gputune("search " + spec.spec() + " --compile-only -q --strategy model");
  EXPECT_EQ(model.exit_code, 64) << model.err;
  EXPECT_TRUE(contains(model.err, "--strategy model with --compile-only")) << model.err;
  CommandResult timed = run_gputune("search " + spec.spec() + " --compile-only -q --budget 10m");
  EXPECT_EQ(timed.exit_code, 64) << timed.err;
  EXPECT_TRUE(contains(timed.err, "expected a number of variants")) << timed.err;
  // The spec's own budget (a T1 file's Budget ConfigurationCount) holds without --budget,
  // even over a space too large to compile unasked.
  TempSpec budgeted(400, "out[i] = out[i] * (A + B);");
  std::ofstream(budgeted.spec(), std::ios::app) << "search: {budget: 3}\n";
  CommandResult own = run_gputune("search " + budgeted.spec() + " --compile-only -q");
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_TRUE(contains(own.out, "3 variants compiled for sm_90, 0 failed")) << own.out;
  // 400 x 400 = 160000 valid variants: more than compile-only takes without being asked.
  TempSpec huge(400, "out[i] = out[i] * (A + B);");
  CommandResult all = run_gputune("search " + huge.spec() + " --compile-only -q");
  EXPECT_EQ(all.exit_code, 64) << all.err;
  EXPECT_TRUE(contains(all.err, "160000 valid variants: --compile-only compiles every one"))
      << all.err;
  EXPECT_TRUE(all.out.empty()) << all.out;
}

}  // namespace
}  // namespace gputune
