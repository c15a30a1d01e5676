// The installed package as an outside project sees it: `cmake --install` into a temporary
// prefix, examples/runtime_select configured and built against it with find_package(gputune),
// and run without a GPU, where it must say so with its own exit code.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

struct ShellRun {
  int exit_code = -1;
  std::string output;
};

ShellRun shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

TEST(InstallTest, AnOutsideProjectBuildsAgainstTheInstalledRuntime) {
  const fs::path build = fs::path(test::gputune_binary()).parent_path();
  if (!fs::exists(build / "CMakeCache.txt") || shell("cmake --version").exit_code != 0) {
    GTEST_SKIP() << "needs the CMake build tree and cmake on PATH";
  }
  const fs::path root = fs::temp_directory_path() / ("gputune_install_" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path prefix = root / "prefix", example = root / "example";
  const ShellRun install =
      shell("cmake --install " + quoted(build) + " --prefix " + quoted(prefix));
  ASSERT_EQ(install.exit_code, 0) << install.output;
  EXPECT_TRUE(fs::exists(prefix / "include" / "gputune" / "runtime.h"));
  EXPECT_TRUE(fs::exists(prefix / "lib" / "cmake" / "gputune" / "gputuneConfig.cmake"));

  const ShellRun configure = shell(
      "cmake -S " + quoted(fs::path(test::source_dir()) / "examples" / "runtime_select") + " -B " +
      quoted(example) + " -DCMAKE_PREFIX_PATH=" + quoted(prefix) + " -DCMAKE_BUILD_TYPE=Release");
  ASSERT_EQ(configure.exit_code, 0) << configure.output;
  const ShellRun compile = shell("cmake --build " + quoted(example) + " -j 2");
  ASSERT_EQ(compile.exit_code, 0) << compile.output;

  const ShellRun usage = shell(quoted(example / "runtime_select"));
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
  const ShellRun run = shell(quoted(example / "runtime_select") + " " +
                             quoted(root / "none.gtrel") + " --transpose 1000");
  if (run.exit_code == 69) {
    EXPECT_NE(run.output.find("no GPU"), std::string::npos) << run.output;
  } else {
    // A GPU is here: the missing file is a warning and, without code, a clear refusal.
    EXPECT_EQ(run.exit_code, 3) << run.output;
    EXPECT_NE(run.output.find("not found"), std::string::npos) << run.output;
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace gputune
