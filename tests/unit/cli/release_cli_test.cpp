// `gputune release` as a user runs it: on result databases replayed from the shipped recordings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "compile/cubin_symbols.h"
#include "release/release_db.h"
#include "support/release_writer.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::run_gputune;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class ReleaseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_);
    for (const char* recording :
         {"transpose_n_4096_NVIDIA_H200.csv", "transpose_n_8192_NVIDIA_H200.csv",
          "stencil_nx_4096_ny_4096_NVIDIA_H200.csv",
          "sgemm_m_1024_n_1024_k_1024_NVIDIA_H200.csv"}) {
      const CommandResult r =
          run_gputune("search --replay " + test::source_dir() + "/db/recordings/" + recording +
                      " --db " + db_ + " --quiet");
      ASSERT_EQ(r.exit_code, 0) << recording << "\n" << r.err;
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_ = fs::temp_directory_path() / ("gputune_release_cli_" + std::to_string(getpid()));
  std::string db_ = path("results.db");
};

// A choice naming a row the file lacks is a damaged file (65, naming it), not an internal error
// (it was vector::_M_range_check, exit 70).
TEST(ReleaseDump, DanglingIdsAreAnErrorOfTheFile) {
  const std::string file =
      (fs::temp_directory_path() / ("gputune_dump_dangling_" + std::to_string(getpid()) + ".gtrel"))
          .string();
  {
    testing::ReleaseWriter w(file);
    const int64_t k = w.kernel(
        "k",
        R"({"problem": {}, "parameters": {"A": [1]}, "launch": [{"kernel": "k", "block": ["1"], "grid": ["1"]}], "baseline": {"A": 1}})");
    const int64_t d = w.device("GPU", 9, 0, 132);
    w.choice(k, d, "{}", 0, /*config_id=*/99, 1.0);
  }
  const CommandResult r = run_gputune("release --dump " + file);
  fs::remove(file);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find(file + ": a choice names config 99"), std::string::npos) << r.err;
}

TEST_F(ReleaseCli, BuildsAReleaseWithCodeFromReplayedResults) {
  const std::string out = path("transpose.gtrel");
  const CommandResult r =
      run_gputune("release " + db_ + " -o " + out +
                  " --kernel transpose --embed sm_90 -j 2 --cache-dir " + path("cache"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 kernels, 1 GPUs, 2 problem points"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("kept configs for sm_90..."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept configs for compute_90 (PTX)..."), std::string::npos) << r.err;

  const std::string dump = read(out + ".txt");
  EXPECT_NE(dump.find("transpose | NVIDIA H200 sm_90 132SM nvrtc 13.0 | n=4096 | #0 | "),
            std::string::npos)
      << dump;
  EXPECT_LT(dump.find("n=4096"), dump.find("n=8192"));  // sorted
  const CommandResult again = run_gputune("release --dump " + out);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, dump);

  // Every kept config has a cubin that defines its entry, and PTX.
  const Release release = read_release_db(out);
  ASSERT_FALSE(release.configs.empty());
  std::map<int64_t, std::set<std::string>> targets;
  for (const ReleaseCode& code : release.code) {
    targets[code.config_id].insert(code.target);
    if (code.kind == "cubin") {
      EXPECT_EQ(code.image.substr(0, 4),
                "\x7f"
                "ELF");
      EXPECT_GE(cubin_symbol_bytes(code.image, code.entry), 0) << code.entry;
    } else {
      EXPECT_NE(code.image.find(".entry " + code.entry), std::string::npos);
    }
  }
  for (size_t id = 1; id <= release.configs.size(); ++id) {
    EXPECT_EQ(targets[static_cast<int64_t>(id)], (std::set<std::string>{"compute_90", "sm_90"}))
        << release.configs[id - 1].config_json;
  }
}

// A cached module someone changed (a shared cache folder, a tampered file) is never embedded:
// its HMAC fails, so the release compiles the config again and embeds what NVRTC makes.
TEST_F(ReleaseCli, ATamperedCacheEntryIsNeverEmbedded) {
  const std::string first = path("first.gtrel"), second = path("second.gtrel");
  const std::string options = " --kernel transpose --embed sm_90 -j 2 --cache-dir " + path("cache");
  CommandResult r = run_gputune("release " + db_ + " -o " + first + options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t tampered = 0;
  for (const auto& entry : fs::directory_iterator(path("cache"))) {
    std::string bytes = read(entry.path());
    const size_t elf = bytes.find(
        "\x7f"
        "ELF");
    if (elf == std::string::npos || elf + 200 >= bytes.size()) continue;
    bytes[elf + 200] = static_cast<char>(bytes[elf + 200] ^ 0x5A);  // inside the cubin
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << bytes;
    ++tampered;
  }
  ASSERT_GT(tampered, 0u) << "no cached cubin to tamper with";
  r = run_gputune("release " + db_ + " -o " + second + options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Release a = read_release_db(first), b = read_release_db(second);
  ASSERT_EQ(a.code.size(), b.code.size());
  for (size_t i = 0; i < a.code.size(); ++i) {
    EXPECT_TRUE(a.code[i].image == b.code[i].image)
        << "config " << b.code[i].config_id << " " << b.code[i].target
        << ": the release embedded other code than NVRTC made";
  }
}

TEST_F(ReleaseCli, SameInputsSameDumpAndAnExistingOutputIsRefused) {
  const std::string a = path("a.gtrel"), b = path("b.gtrel");
  ASSERT_EQ(run_gputune("release " + db_ + " -o " + a + " --no-code").exit_code, 0);
  ASSERT_EQ(run_gputune("release " + db_ + " -o " + b + " --no-code").exit_code, 0);
  EXPECT_EQ(read(a + ".txt"), read(b + ".txt"));
  const std::string dump = read(a + ".txt");
  for (const char* kernel : {"transpose | ", "stencil5 | ", "sgemm | "}) {
    EXPECT_NE(dump.find(kernel), std::string::npos) << kernel << "\n" << dump;
  }

  const CommandResult refused = run_gputune("release " + db_ + " -o " + a + " --no-code");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(run_gputune("release " + db_ + " -o " + a + " --no-code --force").exit_code, 0);
}

TEST_F(ReleaseCli, UsageErrorsSayWhatIsExpected) {
  CommandResult r = run_gputune("release -o " + path("x.gtrel"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("result databases"), std::string::npos) << r.err;
  r = run_gputune("release " + db_);
  EXPECT_NE(r.err.find("-o FILE.gtrel"), std::string::npos) << r.err;
  r = run_gputune("release " + db_ + " -o " + path("x.gtrel") + " --embed 90");
  EXPECT_NE(r.err.find("--embed 90"), std::string::npos) << r.err;
  r = run_gputune("release --dump " + db_);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("not a gputune release database"), std::string::npos) << r.err;
  r = run_gputune("release --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--embed"), std::string::npos);
  EXPECT_NE(run_gputune("--help").out.find("release"), std::string::npos);
}

}  // namespace
}  // namespace gputune
