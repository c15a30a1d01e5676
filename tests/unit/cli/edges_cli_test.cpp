// The edges a new user hits first (issue 30): a typo of a command or an option gets a
// suggestion, `gputune --help` keeps every row readable, help names commands that exist, and
// `gputune best` on a database that holds something else says what it holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "support/run_gputune.h"
#include "support/text.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

using testing::contains;

TEST(CliEdges, AMistypedCommandGetsASuggestion) {
  const CommandResult r = run_gputune("serach transpose");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_TRUE(contains(r.err, "unknown command 'serach' (did you mean 'search'?)")) << r.err;
  const CommandResult far = run_gputune("frobnicate");
  EXPECT_EQ(far.exit_code, 64);
  EXPECT_FALSE(contains(far.err, "did you mean")) << far.err;
}

TEST(CliEdges, AMistypedOptionGetsASuggestion) {
  const CommandResult r = run_gputune("search transpose --budgte 5 --compile-only");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_TRUE(contains(r.err, "'--budgte' (did you mean '--budget'?)")) << r.err;
  const CommandResult with_value = run_gputune("show --dbb=x.db");
  EXPECT_EQ(with_value.exit_code, 64);
  EXPECT_TRUE(contains(with_value.err, "did you mean '--db'?")) << with_value.err;
}

// A synopsis wider than the column used to run straight into its summary
// ("import kt-cache FILE --spec SPECstore a Kernel Tuner ...").
TEST(CliEdges, EveryHelpRowKeepsItsSynopsisApartFromItsSummary) {
  const CommandResult r = run_gputune("--help");
  ASSERT_EQ(r.exit_code, 0);
  std::istringstream lines(r.out);
  bool listing = false;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line == "commands:") {
      listing = true;
      continue;
    }
    if (!listing) continue;
    if (line.empty()) break;
    if (line.rfind("   ", 0) == 0) continue;  // a summary's own line
    ++rows;
    const size_t gap = line.find("  ", 2);
    const bool apart = gap != std::string::npos && gap + 2 < line.size();
    if (!apart) {
      // The synopsis alone on its line: its summary follows, indented.
      std::string next;
      ASSERT_TRUE(static_cast<bool>(std::getline(lines, next))) << line;
      EXPECT_EQ(next.rfind(std::string(16, ' '), 0), 0u) << line << "\n" << next;
    }
  }
  EXPECT_GT(rows, 10);
  EXPECT_TRUE(contains(r.out, "  import kt-cache FILE --spec SPEC\n")) << r.out;
}

TEST(CliEdges, TheShardHelpNamesTheMergeCommandThatExists) {
  const CommandResult search = run_gputune("search --help");
  EXPECT_FALSE(contains(search.out, "db merge")) << search.out;
  EXPECT_TRUE(contains(search.out, "gputune merge")) << search.out;
  EXPECT_EQ(run_gputune("merge --help").exit_code, 0);
}

// A replay of the shipped transpose recording at n=4096: the recordings were made with an older
// transpose (db/recordings/spaces-*/), so `best transpose` finds nothing, and says it is another
// kernel source; with the spec that was measured, at a size that was not, it names the sizes.
TEST(CliEdges, BestNamesWhatTheDatabaseHoldsInstead) {
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_edges_best_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "replayed.db").string();
  const std::string recording =
      test::source_dir() + "/db/recordings/transpose_n_4096_NVIDIA_H200.csv";
  const CommandResult replayed =
      run_gputune("search --replay " + recording + " --budget 10 --strategy random --db " + db);
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  std::string measured_spec;
  for (const auto& entry : fs::directory_iterator(test::source_dir() + "/db/recordings")) {
    if (entry.is_directory() && fs::exists(entry.path() / "spaces" / "transpose.yaml")) {
      measured_spec = (entry.path() / "spaces" / "transpose.yaml").string();
    }
  }
  ASSERT_FALSE(measured_spec.empty());
  const CommandResult best = run_gputune("best " + measured_spec + " --set n=4096 --db " + db);
  EXPECT_EQ(best.exit_code, 0) << best.err;
  const CommandResult other = run_gputune("best " + measured_spec + " --set n=2048 --db " + db);
  EXPECT_EQ(other.exit_code, 65);
  EXPECT_TRUE(contains(other.err, "measured at n=4096, not at n=2048")) << other.err;
  const CommandResult today = run_gputune("best transpose --set n=4096 --db " + db);
  EXPECT_EQ(today.exit_code, 65);
  EXPECT_TRUE(contains(today.err, "another kernel source")) << today.err;
  EXPECT_TRUE(contains(today.err, measured_spec)) << today.err;

  // analyze --stored reads the same database without a GPU: no counters were recorded, so it
  // says how to take them (65); for a spec the database lacks, why (64).
  const CommandResult stored =
      run_gputune("analyze " + measured_spec + " --set n=4096 --best --stored --db " + db);
  EXPECT_EQ(stored.exit_code, 65) << stored.err;
  EXPECT_TRUE(contains(stored.err, "no counters stored for")) << stored.err;
  const CommandResult none = run_gputune("analyze transpose --set n=4096 --stored --db " + db);
  EXPECT_EQ(none.exit_code, 64) << none.err;
  EXPECT_TRUE(contains(none.err, "another kernel source")) << none.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
