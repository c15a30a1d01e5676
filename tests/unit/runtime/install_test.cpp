// The installed package as an outside project sees it: `cmake --install` into a temporary
// prefix, examples/runtime_select configured and built against it with find_package(gputune),
// and run without a GPU, where it must say so with its own exit code; and an application that
// selects from every release file of the fuzz corpus, which no file may stop.
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

  // An application selecting from each release file of the fuzz corpus, valid and broken (not
  // SQLite, truncated, another application's, rows of other shapes): lenient selection never
  // stops it (it aborted on one bad row), a broken file gives the default with a warning.
  const fs::path app = root / "app";
  ASSERT_EQ(
      shell("cmake -S " +
            quoted(fs::path(test::source_dir()) / "tests" / "fixtures" / "runtime_app") + " -B " +
            quoted(app) + " -DCMAKE_PREFIX_PATH=" + quoted(prefix) + " -DCMAKE_BUILD_TYPE=Release")
          .exit_code,
      0);
  const ShellRun app_build = shell("cmake --build " + quoted(app) + " -j 2");
  ASSERT_EQ(app_build.exit_code, 0) << app_build.output;
  const fs::path corpus = fs::path(test::source_dir()) / "tests" / "fuzz" / "corpus" / "release";
  std::string all;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    const std::string name = entry.path().filename().string();
    all += " " + quoted(entry.path());
    ++files;
    const ShellRun run = shell(quoted(app / "runtime_app") + " " + quoted(entry.path()));
    EXPECT_EQ(run.exit_code, 0) << name << ":\n" << run.output;
    if (name == "valid.gtrel") {
      EXPECT_NE(run.output.find("transpose n=4096: exact"), std::string::npos) << run.output;
      EXPECT_NE(run.output.find("warnings: 0"), std::string::npos) << run.output;
    } else if (name == "not_sqlite.gtrel" || name == "truncated.gtrel" || name == "foreign.gtrel" ||
               name == "problem_not_an_object.gtrel") {
      EXPECT_NE(run.output.find("transpose n=4096: default"), std::string::npos) << name << ":\n"
                                                                                 << run.output;
      EXPECT_EQ(run.output.find("warnings: 0"), std::string::npos) << name << ":\n" << run.output;
    }
  }
  EXPECT_GE(files, 8);
  const ShellRun every = shell(quoted(app / "runtime_app") + all);
  EXPECT_EQ(every.exit_code, 0) << every.output;
  fs::remove_all(root);
}

}  // namespace
}  // namespace gputune
