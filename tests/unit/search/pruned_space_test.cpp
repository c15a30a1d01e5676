// Pruning by the prior inside a search (search/pruned_space.h, docs/pruning.md).
#include "search/pruned_space.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "search/prior.h"
#include "search/search.h"
#include "spec/spec_loader.h"
#include "support/fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::FakeCompiler;
using testing::FakeRunner;

class PrunedSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_pruned_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The fake runner's time grows with the config index (1 ms + index / 10): A=1 B=0 is the
  // fastest, 4.1 times faster than the slowest. Every launch fills the GPU at both sizes.
  Problem problem(const std::string& n, const std::string& extra_parameter = "",
                  const std::string& extra_baseline = "") {
    const std::string text = R"(kernel: {source: k.cu, name: k}
problem: {n: 1048576}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [32], grid: [ceil(n / (32 * A))]}
parameters: {A: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], B: [0, 1])" +
                             extra_parameter + R"(}
baseline: {A: 8, B: 1)" + extra_baseline +
                             "}\n";
    return Problem(parse_spec(text, (dir_ / "spec.yaml").string(), {{"n", n}}));
  }

  fs::path dir_;
};

TEST_F(PrunedSearchTest, ASecondSearchOfTheKernelIsPrunedByTheFirst) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner first_runner;
  Problem first = problem("1048576");
  const SearchResult cold = run_search(first, first_runner, compiler, *store, {});
  EXPECT_EQ(cold.evaluated.size(), first.space().count_valid());
  EXPECT_TRUE(cold.pruning.pruned.empty());
  EXPECT_EQ(cold.pruning.skipped, "no prior data");

  FakeRunner second_runner;
  Problem second = problem("4194304");
  const SearchResult warm = run_search(second, second_runner, compiler, *store, {});
  const PruneResult& pruning = warm.pruning;
  ASSERT_FALSE(pruning.pruned.empty());
  EXPECT_EQ(pruning.prior_workloads, 1u);
  EXPECT_EQ(pruning.considered, second.space().count_valid());
  EXPECT_EQ(warm.evaluated.size(), second.space().count_valid() - pruning.pruned.size());
  // The fastest config is measured, the pruned ones never reach the runner, and what was
  // pruned is slower than the factor says.
  EXPECT_NE(std::find(second_runner.ran.begin(), second_runner.ran.end(), 0u),
            second_runner.ran.end());
  for (uint64_t index : pruning.pruned) {
    EXPECT_EQ(std::count(second_runner.ran.begin(), second_runner.ran.end(), index), 0);
    EXPECT_GT(1 + index / 10.0, pruning.factor) << index;
  }
  EXPECT_FALSE(
      std::binary_search(pruning.pruned.begin(), pruning.pruned.end(), second.baseline_index()));
}

TEST_F(PrunedSearchTest, NoPruneMeasuresEveryConfigAndNoPriorPrunesNothing) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  Problem first = problem("1048576");
  run_search(first, runner, compiler, *store, {});
  Problem second = problem("4194304");
  SearchOptions options;
  options.prune = false;
  const SearchResult all = run_search(second, runner, compiler, *store, options);
  EXPECT_EQ(all.evaluated.size(), second.space().count_valid());
  EXPECT_TRUE(all.pruning.pruned.empty());
  EXPECT_EQ(all.pruning.skipped, "--no-prune");

  Problem third = problem("2097152");
  options.prune = true;
  options.use_prior = false;
  const SearchResult cold = run_search(third, runner, compiler, *store, options);
  EXPECT_EQ(cold.evaluated.size(), third.space().count_valid());
  EXPECT_EQ(cold.pruning.skipped, "--no-prior");
}

// A kernel version with a knob added learns from the version before it: its configs are read
// with the new knob at its baseline value, and prune the new space.
TEST_F(PrunedSearchTest, AKernelVersionWithANewParameterIsPrunedByTheOldOnesResults) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  Problem old_version = problem("1048576");
  run_search(old_version, runner, compiler, *store, {});
  Problem new_version = problem("1048576", ", C: [0, 1]", ", C: 0");
  const auto prior = prior_from_store(*store, 0, prior_key(new_version));
  ASSERT_EQ(prior.size(), 1u);
  EXPECT_NE(prior[0].label.find("+C"), std::string::npos) << prior[0].label;
  EXPECT_EQ(prior[0].measurements.size(), old_version.space().count_valid());
  EXPECT_NE(prior[0].measurements[0].config.find("\"C\":0"), std::string::npos);
  FakeRunner new_runner;
  const SearchResult result = run_search(new_version, new_runner, compiler, *store, {});
  EXPECT_EQ(result.pruning.prior_workloads, 1u);
  EXPECT_FALSE(result.pruning.pruned.empty());
}

}  // namespace
}  // namespace gputune
