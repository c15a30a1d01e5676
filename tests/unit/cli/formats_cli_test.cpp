// The formats other tuners speak, from the command line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

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

}  // namespace
}  // namespace gputune
