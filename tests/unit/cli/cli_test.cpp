// The command line as a user meets it: exit codes, where messages go, what they say.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process/gpu_list.h"
#include "replay/replay.h"
#include "run/runner.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "support/run_gputune.h"
#include "support/synthetic_recording.h"
#include "support/text.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

using testing::CommandResult;
using testing::run_gputune;

uint64_t transpose_variants() {
  return Problem(load_spec(gputune::test::source_dir() + "/spaces/transpose.yaml"))
      .space()
      .count_valid();
}

using testing::contains;

TEST(Cli, HelpAndUsageErrors) {
  CommandResult help = run_gputune("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "search SPEC"));
  for (const char* command : {"best SPEC", "show", "list", "export"}) {
    EXPECT_TRUE(contains(help.out, std::string("\n  ") + command)) << command;
  }
  // Every exit code the program uses is listed (error.cpp maps kDb to 73, kIo to 74).
  EXPECT_TRUE(contains(help.out, "73 the database")) << help.out;
  EXPECT_TRUE(contains(help.out, "74 a file")) << help.out;
  CommandResult search_help = run_gputune("search --help");
  EXPECT_EQ(search_help.exit_code, 0);
  EXPECT_TRUE(contains(search_help.out, "--compile-only"));
  EXPECT_TRUE(contains(search_help.out, "--budget"));
  CommandResult unknown = run_gputune("serch x");
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_TRUE(contains(unknown.err, "unknown command 'serch'"));
  CommandResult bad_option = run_gputune("search spaces/transpose.yaml --bogus");
  EXPECT_EQ(bad_option.exit_code, 64);
  CommandResult bad_budget = run_gputune("search transpose --budget 3x");
  EXPECT_EQ(bad_budget.exit_code, 64);
  EXPECT_TRUE(contains(bad_budget.err, "--budget 3x"));
  CommandResult missing = run_gputune("search no-such-spec");
  EXPECT_EQ(missing.exit_code, 74);
  EXPECT_TRUE(contains(missing.err, "shipped: "));
}

TEST(Cli, ListShowsTheShippedTransposeSpace) {
  CommandResult list = run_gputune("list");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_TRUE(contains(list.out, "transpose")) << list.out;
  EXPECT_TRUE(contains(list.out, std::to_string(transpose_variants()) + " variants")) << list.out;
}

TEST(Cli, BadSpecStopsWithItsLocationAndExitCode65) {
  fs::path dir = fs::temp_directory_path() / ("gputune_cli_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(gputune::test::source_dir() + "/kernels/transpose.cu", dir / "t.cu",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "bad.yaml") << "kernel: {source: t.cu, name: transpose}\n"
                                     "problem: {n: 64}\n"
                                     "arguments:\n"
                                     "  - {name: out, type: float32, count: n*n, output: true}\n"
                                     "launch: {block: [32], grid: [n / TILEE]}\n"
                                     "parameters: {TILE: [32]}\n";
  CommandResult bad = run_gputune("search " + (dir / "bad.yaml").string() + " --compile-only");
  EXPECT_EQ(bad.exit_code, 65);
  EXPECT_TRUE(contains(bad.err, "bad.yaml:5:")) << bad.err;
  EXPECT_TRUE(contains(bad.err, "undefined name 'TILEE'")) << bad.err;
  EXPECT_FALSE(contains(bad.err, "terminate")) << bad.err;
  fs::remove_all(dir);
}

TEST(Cli, CompileOnlyCompilesEveryTransposeVariant) {
  CommandResult run_result = run_gputune("search transpose --compile-only --arch sm_90 -q");
  EXPECT_EQ(run_result.exit_code, 0) << run_result.out << run_result.err;
  EXPECT_TRUE(contains(run_result.out, std::to_string(transpose_variants()) +
                                           " variants compiled for sm_90, 0 failed"))
      << run_result.out;
}

TEST(Cli, SearchWithoutAGpuSaysSoAndExits69) {
  if (!list_gpus().empty()) GTEST_SKIP() << "a GPU is present";
  CommandResult search = run_gputune("search transpose --db /tmp/gputune_cli_nogpu.db");
  EXPECT_EQ(search.exit_code, 69);
  EXPECT_TRUE(contains(search.err, "--compile-only")) << search.err;
}

TEST(Cli, ProfileLaunchTakesOnlyTheSpacesOwnConfigJson) {
  // Checked before any GPU is looked for: a value outside the space, an extra key and another
  // key order are each no config of it (the analyze side writes SearchSpace::json exactly).
  const std::string rest = R"("PAD":0,"MERGE_Y":1,"VEC":1,"TALL":1,"STREAM":0,"block_order":"row")";
  for (const std::string& config :
       {R"({"SHARED":1,"TILE":33,)" + rest + "}", R"({"SHARED":1,"TILE":32,)" + rest + R"(,"X":1})",
        R"({"TILE":32,"SHARED":1,)" + rest + "}"}) {
    CommandResult r = run_gputune("profile-launch transpose --config-json '" + config + "'");
    EXPECT_EQ(r.exit_code, 64) << config << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "is no config of transpose")) << r.err;
  }
}

TEST(Cli, SetTakesSeveralAssignmentsSeparatedByCommas) {
  if (!list_gpus().empty()) GTEST_SKIP() << "a GPU is present";
  // Both values are read (a comma inside max(...) is not a separator), so the search gets as
  // far as looking for a GPU.
  CommandResult both =
      run_gputune("search stencil --set 'nx=1000,ny=max(2, 3)' --db /tmp/gputune_cli_set.db");
  EXPECT_EQ(both.exit_code, 69) << both.err;
  CommandResult unknown =
      run_gputune("search stencil --set nx=1000,nz=3 --db /tmp/gputune_cli_set.db");
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_TRUE(contains(unknown.err, "--set nz=3: 'nz' is not a problem value")) << unknown.err;
}

TEST(Cli, ExportedRecordingReplaysWithoutAGpu) {
  fs::path dir = fs::temp_directory_path() / ("gputune_cli_replay_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string spec = testing::write_synthetic_spec(dir);
  std::string db = (dir / "recorded.db").string();
  {
    auto store = open_sqlite_store(db);
    testing::record_synthetic(*store, spec, 1024, 0);
  }
  CommandResult exported = run_gputune("export --db " + db + " --out " + (dir / "out").string());
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir / "out")) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);

  CommandResult replay = run_gputune("search --replay " + files[0].string() +
                                     " --strategy random --seed 4 --budget 25 --json");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto report = nlohmann::json::parse(replay.out);
  EXPECT_EQ(report["device"]["name"], "Synthetic GPU A");
  EXPECT_EQ(report["search"]["evaluated"].get<int>() + report["search"]["reused"].get<int>(), 26)
      << "25 evaluations and the baseline";
  // --json lists every correct variant; --top, when given, limits it.
  EXPECT_EQ(report["results"].size() + report["failed"].size(), 26u);
  CommandResult top = run_gputune("search --replay " + files[0].string() +
                                  " --strategy random --seed 4 --budget 25 --json --top 3");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(nlohmann::json::parse(top.out)["results"].size(), 3u);
  CommandResult both = run_gputune("search x --replay " + files[0].string());
  EXPECT_EQ(both.exit_code, 64);
  // One replay rule (gputune/session.h): a database replays the workload its SPEC names.
  CommandResult database = run_gputune("search " + spec + " --replay " + db +
                                       " --strategy random --seed 4 --budget 25 --json");
  ASSERT_EQ(database.exit_code, 0) << database.err;
  EXPECT_EQ(nlohmann::json::parse(database.out)["results"], report["results"]);
  CommandResult no_spec = run_gputune("search --replay " + db);
  EXPECT_EQ(no_spec.exit_code, 64);
  EXPECT_TRUE(contains(no_spec.err, "give the SPEC")) << no_spec.err;

  // Off a terminal, progress is a line per phase and a last one, not a line per event.
  CommandResult logged = run_gputune("search --replay " + files[0].string() +
                                     " --strategy random --seed 4 --budget 25");
  ASSERT_EQ(logged.exit_code, 0) << logged.err;
  std::vector<std::string> lines;
  std::istringstream err(logged.err);
  for (std::string line; std::getline(err, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 3u) << logged.err;
  EXPECT_LE(lines.size(), 5u) << logged.err;
  EXPECT_EQ(lines[0].rfind("[baseline 0/25]", 0), 0u) << logged.err;
  EXPECT_EQ(lines[1].rfind("[compiling ", 0), 0u) << logged.err;
  EXPECT_EQ(lines[2].rfind("[measuring ", 0), 0u) << logged.err;
  EXPECT_EQ(lines.back().rfind("[measuring 25/25]", 0), 0u) << logged.err;
  fs::remove_all(dir);
}

// A second search of a kernel, at another size, is shorter than the first: the database's
// results of the first prune it, and the table and the JSON say so and from what.
TEST(Cli, ASecondSearchIsPrunedByTheDatabase) {
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_cli_prune_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string recordings = gputune::test::source_dir() + "/db/recordings/";
  const std::string db = (dir / "tune.db").string();
  CommandResult first = run_gputune("search -q --json --replay " + recordings +
                                    "transpose_n_8192_NVIDIA_H200.csv --db " + db);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto cold = nlohmann::json::parse(first.out);
  EXPECT_FALSE(cold.contains("prior_pruning")) << "no prior data: the search is as it was";
  fs::copy_file(db, dir / "copy.db");
  CommandResult second = run_gputune("search -q --json --replay " + recordings +
                                     "transpose_n_4096_NVIDIA_H200.csv --db " + db);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto warm = nlohmann::json::parse(second.out);
  const int pruned = warm["prior_pruning"]["pruned"].get<int>();
  EXPECT_GT(pruned, 0);
  EXPECT_EQ(warm["prior_pruning"]["prior"][0], "NVIDIA H200 {\"n\":8192}");
  CommandResult table = run_gputune("search -q --replay " + recordings +
                                    "transpose_n_4096_NVIDIA_H200.csv --db " + db);
  EXPECT_TRUE(contains(table.out, "configs predicted by the cost model to be more than"))
      << table.out;
  EXPECT_TRUE(contains(table.out, "prior: 1 workload of this kernel, 230 measurements"))
      << table.out;
  CommandResult whole =
      run_gputune("search -q --json --no-prune --replay " + recordings +
                  "transpose_n_4096_NVIDIA_H200.csv --db " + (dir / "copy.db").string());
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const auto all = nlohmann::json::parse(whole.out);
  const auto done = [](const nlohmann::json& report) {
    return report["search"]["evaluated"].get<int>() + report["search"]["reused"].get<int>();
  };
  EXPECT_EQ(done(all), done(warm) + pruned);
  EXPECT_EQ(all["prior_pruning"]["skipped"], "--no-prune");
  CommandResult bad = run_gputune("search -q --prune-above 1 --replay " + recordings +
                                  "transpose_n_4096_NVIDIA_H200.csv");
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_TRUE(contains(bad.err, "--prune-above 1: expected a factor above 1")) << bad.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
