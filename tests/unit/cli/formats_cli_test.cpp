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
  // The file's Budget (ConfigurationCount 20) holds.
  EXPECT_NE(result.out.find("20 variants compiled for sm_90, 0 failed"), std::string::npos)
      << result.out;
  // Without it: 8 block sizes x 4 tiles, less the 4 whose block_size_x * TILE exceeds 1024.
  result = run_gputune("search " + t1 + " --compile-only --arch sm_90 -j 2 --budget none");
  EXPECT_EQ(result.exit_code, 0) << result.err;
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
  // Named as recordings are, and saying inside what it measured.
  const std::string name = "scaled_sum_ProblemSize_0_65536_NVIDIA_A100_PCIE_40GB.t4.json";
  EXPECT_NE(exported.out.find(name), std::string::npos) << exported.out;
  std::ifstream t4(dir / "t4" / name);
  ASSERT_TRUE(t4.good()) << exported.out;
  const nlohmann::json document = nlohmann::json::parse(t4);
  EXPECT_EQ(document.at("results").size(), 4u);
  EXPECT_EQ(document.at("workload").at("kernel"), "scaled_sum");
  EXPECT_EQ(document.at("workload").at("gpu").at("name"), "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(document.at("workload").at("problem").begin().value(), 65536);
  CommandResult wrong = run_gputune("import kt-cash x --spec y");
  EXPECT_EQ(wrong.exit_code, 64) << wrong.err;
  EXPECT_NE(wrong.err.find("gputune import kt-cache FILE --spec SPEC"), std::string::npos)
      << wrong.err;
  fs::remove_all(dir);
}

// Imported results ship: with the GPU's compute capability and SM count, release builds from
// them (without, it used to stop at "does not compile for sm_0"). Importing again stores
// nothing new, and --json says so.
TEST(FormatsCli, ImportedKernelTunerResultsReleaseAndImportTwiceStoresNothing) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_formats_release_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string formats = test::source_dir() + "/tests/formats/";
  const std::string db = (dir / "prior.db").string();
  const std::string import = "import kt-cache " + formats + "kt_cache.json --spec " + formats +
                             "scaled_sum.json --db " + db;
  const CommandResult bare = run_gputune(import);
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_NE(bare.err.find("prior data only"), std::string::npos) << bare.err;
  const CommandResult first = run_gputune(import + " --cc 8.0 --sm-count 108 --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json stored = nlohmann::json::parse(first.out);
  EXPECT_EQ(stored.at("ok"), 3);
  EXPECT_EQ(stored.at("releasable"), true);
  EXPECT_EQ(stored.at("gpu").at("compute_capability"), "8.0");
  EXPECT_EQ(stored.at("gpu").at("sm_count"), 108);
  const CommandResult again = run_gputune(import + " --cc 8.0 --sm-count 108 --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json second = nlohmann::json::parse(again.out);
  EXPECT_EQ(second.at("ok"), 0);
  EXPECT_EQ(second.at("unchanged"), 4);
  EXPECT_EQ(second.at("workload"), stored.at("workload"));

  // Only the import that knows its GPU goes into the release: the other is prior data.
  const std::string released = (dir / "imported.gtrel").string();
  const CommandResult release = run_gputune("release " + db + " -o " + released + " --no-code");
  EXPECT_EQ(release.exit_code, 0) << release.err;
  const CommandResult dump = run_gputune("release --dump " + released);
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.out.find("scaled_sum"), std::string::npos) << dump.out;

  const CommandResult bad = run_gputune(import + " --cc sm_80");
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_NE(bad.err.find("--cc 'sm_80' is not a compute capability"), std::string::npos) << bad.err;
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
