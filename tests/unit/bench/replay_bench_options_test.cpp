// The replay benchmarks' command lines (bench/replay_bench.h, parse_bench_options): --help lists
// each option with its default, and a misuse is a usage error that names what was wrong.
#include <gtest/gtest.h>
#include <sysexits.h>

#include <filesystem>
#include <string>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

using testing::CommandResult;
using testing::run_command;

// The benchmarks are built beside gputune.
std::string bench(const std::string& name) {
  return (std::filesystem::path(test::gputune_binary()).parent_path() / name).string();
}

TEST(ReplayBenchOptions, HelpListsTheOptionsWithTheirDefaults) {
  const CommandResult prune = run_command(bench("gputune_prune_bench") + " --help");
  EXPECT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_NE(prune.out.find("gputune_prune_bench [options] [recording.csv[.xz] ...]"),
            std::string::npos)
      << prune.out;
  EXPECT_NE(prune.out.find("--margin arg (=1.1)"), std::string::npos) << prune.out;
  EXPECT_NE(prune.out.find("--partial arg (=60)"), std::string::npos) << prune.out;
  EXPECT_NE(prune.out.find("--no-model"), std::string::npos) << prune.out;
  const CommandResult strategy = run_command(bench("gputune_strategy_bench") + " -h");
  EXPECT_EQ(strategy.exit_code, 0) << strategy.err;
  EXPECT_NE(strategy.out.find("--strategies arg (=random,annealing,genetic,model,bottleneck)"),
            std::string::npos)
      << strategy.out;
  EXPECT_NE(strategy.out.find("--model-exploration arg (=0.01)"), std::string::npos)
      << strategy.out;
  EXPECT_NE(strategy.out.find("--synthetic DIR"), std::string::npos) << strategy.out;
}

TEST(ReplayBenchOptions, AnUnknownOptionOrAValueOfAnotherTypeIsAUsageError) {
  const CommandResult unknown = run_command(bench("gputune_prune_bench") + " --above-all 2");
  EXPECT_EQ(unknown.exit_code, EX_USAGE);
  EXPECT_NE(unknown.err.find("gputune_prune_bench: unrecognised option '--above-all'"),
            std::string::npos)
      << unknown.err;
  const CommandResult value = run_command(bench("gputune_strategy_bench") + " --seeds many");
  EXPECT_EQ(value.exit_code, EX_USAGE);
  EXPECT_NE(value.err.find("gputune_strategy_bench: "), std::string::npos) << value.err;
  EXPECT_NE(value.err.find("seeds"), std::string::npos) << value.err;
}

}  // namespace
}  // namespace gputune
