// Text gputune did not write itself, printed by the commands: compiler logs quoting a source
// that is not UTF-8, and databases written elsewhere (a merge input, a damaged file). Each
// ended a command as an internal error (70) after the work was done.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/sqlite.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::run_gputune;

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

class StoredTextCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A database of one replayed workload, then `sql` run on it.
  std::string database(const std::string& sql) const {
    const std::string db = path("results.db");
    fs::remove(db);
    const CommandResult r = run_gputune("search --replay " + test::source_dir() +
                                        "/db/recordings/transpose_n_4096_NVIDIA_H200.csv --db " +
                                        db + " --budget 4 --strategy random --quiet");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    sqlite::Database(db, sqlite::Mode::kReadWrite).exec(sql);
    return db;
  }

  fs::path dir_ = fs::temp_directory_path() / ("gputune_stored_text_" + std::to_string(getpid()));
};

// A Latin-1 byte on a line the compiler quotes in its error: --json writes it replaced.
TEST_F(StoredTextCli, ACompileErrorQuotingBytesThatAreNotUtf8IsWrittenAsJson) {
  fs::create_directories(dir_ / "kernels");
  std::ofstream(dir_ / "kernels" / "k.cu")
      << "extern \"C\" __global__ void k(float* out, int n) {\n"
         "  if (threadIdx.x < n) out[threadIdx.x] = X;\n"
         "  int caf\xE9 = undeclared;\n"
         "}\n";
  std::ofstream(dir_ / "k.yaml") << "kernel: {source: kernels/k.cu, name: k}\n"
                                    "problem: {n: 64}\n"
                                    "arguments:\n"
                                    "  - {name: out, type: float32, count: n, output: true}\n"
                                    "  - {name: n, type: int32, value: n}\n"
                                    "launch: {block: [64], grid: [1]}\n"
                                    "parameters: {X: [1, 2]}\n";
  const CommandResult r = run_gputune("search " + path("k.yaml") +
                                      " --compile-only --arch sm_90 --json --no-cache -j 1");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // variants failed to compile, nothing else
  const nlohmann::json document = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << r.out;
  EXPECT_NE(r.out.find(kReplacement), std::string::npos) << r.out;
}

// Names in a database need not be UTF-8 (another machine's, a damaged file): show --json
// writes them replaced.
TEST_F(StoredTextCli, ShowWritesStoredTextThatIsNotUtf8AsJson) {
  const std::string db = database(
      "UPDATE devices SET name = CAST(x'4e5649444941ff' AS TEXT);"
      "UPDATE specs SET path = CAST(x'2f746d702f6361e92e79616d6c' AS TEXT);");
  const CommandResult r = run_gputune("show --json --db " + db);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json document = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << r.out;
  // show --json's workload record: the device is an object (gputune/results.h, workload_record).
  EXPECT_EQ(document.at(0).at("device").at("name"), std::string("NVIDIA") + kReplacement);
}

// Problem values or a config that are not a JSON object are the database's error (73, naming
// it), in every command that reads them.
TEST_F(StoredTextCli, StoredJsonThatIsNoObjectIsTheDatabasesError) {
  std::string db = database("UPDATE workloads SET problem_json = 'x'");
  for (const std::string& command : {"show --db ", "show --json --db "}) {
    const CommandResult r = run_gputune(command + db);
    EXPECT_EQ(r.exit_code, 73) << command << r.err;
    EXPECT_NE(r.err.find(db + ": the problem values of workload 1 (not a JSON object): x"),
              std::string::npos)
        << r.err;
  }
  db =
      database("UPDATE variants SET config_json = '[1]' WHERE id = (SELECT MIN(id) FROM variants)");
  for (const std::string& command :
       {std::string("show --db "), "export --out " + path("out") + " --db "}) {
    const CommandResult r = run_gputune(command + db);
    EXPECT_EQ(r.exit_code, 73) << command << r.err;
    EXPECT_NE(r.err.find(db + ": config "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(not a JSON object): [1]"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace gputune
