// The formats other tuners speak, from the command line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

using testing::CommandResult;
using testing::run_gputune;

TEST(FormatsCli, T1FileRunsCompileOnly) {
  const std::string t1 = test::source_dir() + "/tests/formats/scaled_sum.json";
  CommandResult result = run_gputune("search " + t1 + " --compile-only --arch sm_90 -j 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  // 8 block sizes x 4 tiles, less the 4 whose block_size_x * TILE exceeds 1024.
  EXPECT_NE(result.out.find("28 variants compiled for sm_90, 0 failed"), std::string::npos)
      << result.out;
}

// The T1 reader returns what it noticed (Spec::warnings); the session hands it on in the
// outcome, and the command line prints each once, whether the session or the command opened
// the spec.
TEST(FormatsCli, AT1DefaultOutsideItsValuesIsWarnedOnceOnStderr) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gputune_t1_warn_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string t1 = (dir / "scaled_sum.json").string();
  {
    std::ifstream in(test::source_dir() + "/tests/formats/scaled_sum.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "\"Default\": 1\n";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), "\"Default\": 3\n");
    std::ofstream(t1) << text;
  }
  fs::copy(test::source_dir() + "/tests/formats/scaled_sum.cu", dir / "scaled_sum.cu");
  const std::string warning = "gputune: warning: " + t1 + ":19:";
  const auto count = [](const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  };
  for (const std::string& command :
       {"search " + t1 + " --compile-only --arch sm_90 -j 2", "transforms " + t1}) {
    const CommandResult result = run_gputune(command);
    EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.err;
    EXPECT_EQ(count(result.err, warning), 1u) << command << "\n" << result.err;
    EXPECT_NE(result.err.find("'TILE' Default 3 is not among its Values"), std::string::npos)
        << result.err;
  }
  fs::remove_all(dir);
}

TEST(FormatsCli, T1FileWithConstantMemoryRunsCompileOnly) {
  const std::string t1 = test::source_dir() + "/tests/formats/weighted_sum.json";
  CommandResult result = run_gputune("search " + t1 + " --compile-only --arch sm_90 -j 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("4 variants compiled for sm_90, 0 failed"), std::string::npos)
      << result.out;
}

TEST(FormatsCli, ImportKernelTunerCacheThenExportT4) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gputune_formats_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string formats = test::source_dir() + "/tests/formats/";
  const std::string db = (dir / "prior.db").string();
  CommandResult imported = run_gputune("import kt-cache " + formats + "kt_cache.json --spec " +
                                       formats + "scaled_sum.json --db " + db);
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("3 ok, 1 failed, 2 outside the spec's space"), std::string::npos)
      << imported.out;
  CommandResult exported =
      run_gputune("export --format t4 --db " + db + " --out " + (dir / "t4").string());
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  std::ifstream t4(dir / "t4" / "workload-1.t4.json");
  ASSERT_TRUE(t4.good()) << exported.out;
  EXPECT_EQ(nlohmann::json::parse(t4).at("results").size(), 4u);
  CommandResult wrong = run_gputune("import kt-cash x --spec y");
  EXPECT_EQ(wrong.exit_code, 64) << wrong.err;
  EXPECT_NE(wrong.err.find("gputune import kt-cache FILE --spec SPEC"), std::string::npos)
      << wrong.err;
  fs::remove_all(dir);
}

// Numbers beyond a double and the other tuners' huge expressions, a space after ProblemSize
// of any length, a Kernel Tuner cache of wrong types: each is the file's error (65, naming
// it), never an internal error (70, "number overflow") nor a stack overflow (std::regex).
TEST(FormatsCli, HostileT1AndKernelTunerFilesAreTheFilesErrors) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_formats_hostile_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string formats = test::source_dir() + "/tests/formats/";
  fs::copy_file(formats + "scaled_sum.cu", dir / "scaled_sum.cu");
  std::ifstream in(formats + "scaled_sum.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string out = text;
    const size_t at = out.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? out : out.replace(at, from.size(), to);
  };
  const std::vector<std::pair<std::string, std::string>> files = {
      {"overflow.json", replaced("[65536]", "[1e999]")},
      {"python_power.json", replaced("\"ProblemSize[0] / TILE\"", "\"10**400\"")},
      {"digits.json",
       replaced("\"ProblemSize[0] / TILE\"", "\"ProblemSize[" + std::string(30000, '9') + "]\"")},
  };
  for (const auto& [name, content] : files) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << content;
    // A launch's size is worked out per variant: compile-only builds the first.
    const CommandResult r = run_gputune("search " + path + " --compile-only --arch sm_90 -j 1");
    EXPECT_EQ(r.exit_code, 65) << name << ": " << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(path + ":"), std::string::npos) << name << ": " << r.err.substr(0, 300);
  }
  const std::string spaced = (dir / "spaced.json").string();
  std::ofstream(spaced) << replaced("\"ProblemSize[0] / TILE\"",
                                    "\"ProblemSize" + std::string(30000, ' ') + "[0] / TILE\"");
  const CommandResult listed = run_gputune("plan " + spaced + " --json");
  EXPECT_EQ(listed.exit_code, 0) << listed.err.substr(0, 300);

  const std::string cache = (dir / "cache.json").string();
  std::ofstream(cache)
      << R"({"cache": {"64,2": {"block_size_x": 64, "TILE": 2, "time": 1, "times": "fast"}}})";
  const CommandResult imported = run_gputune("import kt-cache " + cache + " --spec " + formats +
                                             "scaled_sum.json --db " + (dir / "p.db").string());
  EXPECT_EQ(imported.exit_code, 65) << imported.err;
  EXPECT_NE(imported.err.find(cache), std::string::npos) << imported.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
