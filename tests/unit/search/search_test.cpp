#include "search/search.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/sqlite.h"
#include "gputune/error.h"
#include "replay/replay.h"
#include "search/evaluation_pipeline.h"
#include "search/prior.h"
#include "search/search_budget.h"
#include "search/stored_results.h"
#include "search/strategy_context.h"
#include "spec/spec_loader.h"
#include "support/fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::FakeCompiler;
using testing::FakeRunner;

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_search_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Problem problem(const std::string& extra = "", const Overrides& set = {},
                  const std::string& file = "spec.yaml") {
    std::string text = R"(kernel: {source: k.cu, name: k}
problem: {n: 64}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [A * 32], grid: [ceil(n / (A * 32))]}
parameters: {A: [1, 2, 3, 4], B: [0, 1, 2], FAIL: [0, 1]}
constraints: [A != 3]
baseline: {A: 1, B: 0, FAIL: 0}
)" + extra;
    return Problem(parse_spec(text, (dir_ / file).string(), set));
  }

  fs::path dir_;
};

TEST_F(SearchTest, BruteForceEvaluatesEveryValidVariantOnceAndStoresFailures) {
  Problem p = problem();
  FakeRunner runner;
  FakeCompiler compiler;
  auto store = open_sqlite_store(":memory:");
  SearchResult result = run_search(p, runner, compiler, *store, {});

  uint64_t valid = p.space().count_valid();
  ASSERT_EQ(valid, 3u * 3 * 2);
  EXPECT_EQ(result.evaluated.size(), valid);
  auto stored = store->measured(result.workload);
  EXPECT_EQ(stored.size(), valid);
  size_t compile_errors = 0;
  for (const auto& m : stored) {
    if (m.status == Status::kCompileError) {
      ++compile_errors;
      EXPECT_NE(m.message.find("FAIL was asked for"), std::string::npos);
    }
  }
  EXPECT_EQ(compile_errors, valid / 2);
  EXPECT_EQ(runner.reference_runs, 1);
  // The baseline is measured as the reference and not again as a variant.
  std::set<uint64_t> ran(runner.ran.begin(), runner.ran.end());
  EXPECT_EQ(ran.size(), runner.ran.size());
  EXPECT_EQ(ran.count(p.baseline_index()), 0u);
  EXPECT_DOUBLE_EQ(result.copy_bandwidth_gbs, 3000);
}

TEST_F(SearchTest, RerunMeasuresNothingAndForceMeasuresAgain) {
  Problem p = problem();
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  {
    FakeRunner runner;
    run_search(p, runner, compiler, *store, {});
  }
  FakeRunner again;
  SearchResult second = run_search(p, again, compiler, *store, {});
  EXPECT_TRUE(again.ran.empty());
  EXPECT_EQ(second.record.evaluated, 0);
  EXPECT_EQ(second.record.reused, static_cast<int64_t>(p.space().count_valid()));
  EXPECT_EQ(again.bandwidth_runs, 0) << "copy bandwidth is measured once per GPU";

  SearchOptions force;
  force.force = true;
  FakeRunner forced;
  run_search(p, forced, compiler, *store, force);
  // Every variant that compiles runs again, except the baseline: it was just measured as
  // the reference.
  EXPECT_EQ(forced.ran.size(), p.space().count_valid() / 2 - 1);
  EXPECT_EQ(std::count(forced.ran.begin(), forced.ran.end(), p.baseline_index()), 0);
}

TEST_F(SearchTest, BudgetCountsEvaluationsIncludingReusedOnes) {
  Problem p = problem();
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  SearchOptions options;
  options.strategy = "random";
  options.seed = 3;
  options.budget_evaluations = 5;
  FakeRunner runner;
  SearchResult first = run_search(p, runner, compiler, *store, options);
  EXPECT_EQ(first.evaluated.size(), 5u);

  options.budget_evaluations = 8;
  FakeRunner runner2;
  SearchResult second = run_search(p, runner2, compiler, *store, options);
  EXPECT_EQ(second.evaluated.size(), 8u);
  // The first five come back from the database, and so may the baseline, which the first
  // search measured as its reference.
  std::set<uint64_t> first_five;
  for (const auto& m : first.evaluated) first_five.insert(m.config_index);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(second.evaluated[i].config_index, first.evaluated[i].config_index);
  EXPECT_GE(second.record.reused, 5);
  EXPECT_EQ(second.record.reused + second.record.evaluated, 8);
  for (auto index : runner2.ran) EXPECT_EQ(first_five.count(index), 0u);
}

// A stored row beyond the space (a damaged database) is the database's error before anything
// runs; it ended the search afterwards as a usage error (64) when the report decoded it.
TEST_F(SearchTest, TheSpecsOwnBudgetHoldsWhereNoOptionGivesOne) {
  // A T1 file's Budget (ConfigurationCount) becomes the spec's, as YAML's search: {budget}.
  Problem p = problem("search: {strategy: random, budget: 4}\n");
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  EXPECT_EQ(run_search(p, runner, compiler, *store, SearchOptions{}).evaluated.size(), 4u);
  SearchOptions more;
  more.budget_evaluations = 6;  // --budget wins over the spec's
  FakeRunner runner2;
  EXPECT_EQ(run_search(p, runner2, compiler, *store, more).evaluated.size(), 6u);
}

TEST_F(SearchTest, AStoredConfigBeyondTheSpaceIsTheDatabasesError) {
  Problem p = problem();
  const std::string db = (dir_ / "beyond.db").string();
  FakeCompiler compiler;
  FakeRunner runner;
  run_search(p, runner, compiler, *open_sqlite_store(db), {});
  sqlite::Database(db, sqlite::Mode::kReadWrite)
      .exec("UPDATE variants SET config_index = 99999999999 WHERE id = 2");
  try {
    run_search(p, runner, compiler, *open_sqlite_store(db), {});
    FAIL() << "searched on a database holding a config outside the space";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDb);
    EXPECT_NE(std::string(e.what()).find("config 99999999999"), std::string::npos) << e.what();
  }
}

// A search killed on the way left no searches row: it was written only at the end.
TEST_F(SearchTest, AKilledSearchLeavesItsRowAsUnfinished) {
  Problem p = problem();
  const std::string db = (dir_ / "killed.db").string();
  FakeCompiler compiler;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto store = open_sqlite_store(db);
      FakeRunner runner;
      // Dies mid-search as a kill -9 would: nothing after this line runs.
      auto progress = [](const SearchProgress& s) {
        if (s.done >= 6) _exit(9);
      };
      run_search(p, runner, compiler, *store, {}, progress);
    } catch (...) {
    }
    _exit(1);  // the search ended without being killed
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 9);
  const auto rows = [&] {
    sqlite::Database raw(db, sqlite::Mode::kReadOnly);
    sqlite::Statement s(raw,
                        "SELECT strategy, interrupted, wall_s IS NULL FROM searches ORDER BY id");
    std::vector<std::string> out;
    while (s.step()) {
      out.push_back(s.text(0) + "," + std::to_string(s.integer(1)) + "," +
                    std::to_string(s.integer(2)));
    }
    return out;
  };
  EXPECT_EQ(rows(), (std::vector<std::string>{"brute_force,1,1"}));

  auto store = open_sqlite_store(db);
  FakeRunner runner;
  const SearchResult done = run_search(p, runner, compiler, *store, {});
  EXPECT_FALSE(done.record.interrupted);
  EXPECT_EQ(rows(), (std::vector<std::string>{"brute_force,1,1", "brute_force,0,0"}));
}

TEST_F(SearchTest, InterruptedSearchResumesWithoutRepeatingWork) {
  Problem p = problem();
  fs::path db = dir_ / "resume.db";
  FakeCompiler compiler;
  std::atomic<bool> stop{false};
  int64_t first_count = 0;
  std::set<uint64_t> first_done;
  {
    auto store = open_sqlite_store(db.string());
    FakeRunner runner;
    auto progress = [&](const SearchProgress& s) {
      if (s.done >= 6) stop = true;
    };
    SearchResult first = run_search(p, runner, compiler, *store, {}, progress, &stop);
    EXPECT_TRUE(first.record.interrupted);
    first_count = static_cast<int64_t>(first.evaluated.size());
    for (const auto& m : first.evaluated) first_done.insert(m.config_index);
    EXPECT_LT(first_count, static_cast<int64_t>(p.space().count_valid()));
  }
  auto store = open_sqlite_store(db.string());
  FakeRunner runner;
  SearchResult second = run_search(p, runner, compiler, *store, {});
  EXPECT_FALSE(second.record.interrupted);
  EXPECT_EQ(second.record.reused, first_count);
  EXPECT_EQ(store->measured(second.workload).size(), p.space().count_valid());
  for (auto index : runner.ran) EXPECT_EQ(first_done.count(index), 0u) << index;
}

TEST_F(SearchTest, WrongAnswersAreStoredAndTheSearchGoesOn) {
  Problem p = problem();
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  uint64_t bad = p.space().encode({1, 1, 0});
  runner.wrong.insert(bad);
  SearchResult result = run_search(p, runner, compiler, *store, {});
  bool found = false;
  for (const auto& m : store->measured(result.workload)) {
    if (m.config_index == bad) {
      found = true;
      EXPECT_EQ(m.status, Status::kWrongAnswer);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(result.evaluated.size(), p.space().count_valid());
}

// Where the spec gives the expected outputs the runner judges the baseline like any variant:
// a wrong baseline is stored as such and the search measures the rest.
TEST_F(SearchTest, AWrongBaselineIsStoredAndTheSearchGoesOn) {
  Problem p = problem();
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  runner.wrong.insert(p.baseline_index());
  SearchResult result = run_search(p, runner, compiler, *store, {});
  EXPECT_EQ(result.baseline.status, Status::kWrongAnswer);
  int wrong = 0;
  for (const auto& m : store->measured(result.workload)) {
    if (m.config_index == p.baseline_index()) EXPECT_EQ(m.status, Status::kWrongAnswer);
    wrong += m.status == Status::kWrongAnswer;
  }
  EXPECT_EQ(wrong, 1);
  EXPECT_EQ(result.evaluated.size(), p.space().count_valid());
}

// An ok baseline whose message names arguments it used otherwise than declared (GpuRunner):
// the search goes on, unless --strict.
TEST_F(SearchTest, AMisusedArgumentStopsTheSearchOnlyWhenStrict) {
  class MisusingRunner : public FakeRunner {
   public:
    Measurement set_reference(const Candidate& baseline) override {
      Measurement m = FakeRunner::set_reference(baseline);
      m.message = "the baseline changed 'x', declared read-only";
      return m;
    }
  };
  Problem p = problem();
  FakeCompiler compiler;
  MisusingRunner runner;
  auto store = open_sqlite_store(":memory:");
  EXPECT_EQ(run_search(p, runner, compiler, *store, {}).evaluated.size(), p.space().count_valid());
  SearchOptions strict;
  strict.strict = true;
  auto fresh = open_sqlite_store(":memory:");
  try {
    run_search(p, runner, compiler, *fresh, strict);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    EXPECT_NE(std::string(e.what()).find("changed 'x'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--strict"), std::string::npos) << e.what();
  }
}

TEST_F(SearchTest, BaselineThatDoesNotCompileStopsWithItsLocation) {
  Problem p = problem();
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  compiler.fail_option = "-DA=1";
  FakeRunner runner;
  try {
    run_search(p, runner, compiler, *store, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    EXPECT_NE(std::string(e.what()).find("spec.yaml:9:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("baseline does not compile"), std::string::npos);
  }
}

TEST_F(SearchTest, OtherProblemSizesOfTheKernelArePriorData) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  Problem small = problem("", {{"n", "64"}});
  SearchResult first = run_search(small, runner, compiler, *store, {});
  Problem large = problem("", {{"n", "256"}});
  SearchOptions options;
  options.strategy = "model";
  options.budget_evaluations = 6;
  SearchResult second = run_search(large, runner, compiler, *store, options);
  EXPECT_EQ(second.evaluated.size(), 6u);

  PriorKey kernel = prior_key(large);
  auto prior = prior_from_store(*store, second.workload, kernel);
  ASSERT_EQ(prior.size(), 1u);
  ASSERT_EQ(prior[0].problem_values.size(), 1u);
  EXPECT_EQ(prior[0].problem_values[0].first, "n");
  EXPECT_EQ(prior[0].problem_values[0].second, 64);
  EXPECT_EQ(prior[0].measurements.size(), small.space().count_valid());
  kernel.kernel_name = "other";
  EXPECT_TRUE(prior_from_store(*store, second.workload, kernel).empty());
}

TEST_F(SearchTest, AnAnnotatedSpecGoesOnWithTheResultsMeasuredBeforeIt) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  const SearchResult first = run_search(problem(), runner, compiler, *store, {});
  // Remedies, a description and search settings change no config and no measurement.
  Problem annotated =
      problem("remedies: {thread_parallelism: [+A]}\ndescription: annotated\nsearch: {seed: 5}\n");
  FakeRunner again;
  const SearchResult second = run_search(annotated, again, compiler, *store, {});
  EXPECT_EQ(second.workload, first.workload);
  EXPECT_TRUE(again.ran.empty());
  EXPECT_EQ(second.record.reused, static_cast<int64_t>(annotated.space().count_valid()));
  EXPECT_EQ(store->workloads().size(), 1u);

  // A tolerance changes what counts as a right answer: a workload of its own.
  Problem changed = problem("check: {rtol: 0.5, atol: 0.5}\n");
  FakeRunner fresh;
  const SearchResult third = run_search(changed, fresh, compiler, *store, {});
  EXPECT_NE(third.workload, first.workload);
  EXPECT_FALSE(fresh.ran.empty());
}

TEST_F(SearchTest, ARenamedSpecKeepsItsPriorData) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  Problem small = problem("", {{"n", "64"}});
  SearchResult first = run_search(small, runner, compiler, *store, {});
  Problem renamed = problem("", {{"n", "256"}}, "k_renamed.yaml");
  SearchOptions options;
  options.strategy = "model";
  options.budget_evaluations = 4;
  SearchResult second = run_search(renamed, runner, compiler, *store, options);
  auto prior = prior_from_store(*store, second.workload, prior_key(renamed));
  ASSERT_EQ(prior.size(), 1u);
  EXPECT_EQ(prior[0].problem_values[0].second, 64);
  EXPECT_EQ(prior[0].measurements.size(), store->measured(first.workload).size());
}

TEST_F(SearchTest, AnotherKernelsSpecOfTheSameFileNameSharesNoPriorData) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  run_search(problem("", {{"n", "64"}}), runner, compiler, *store, {});
  const fs::path other = dir_ / "other";
  fs::create_directories(other);
  std::ofstream(other / "k.cu") << "extern \"C\" __global__ void k2(float* out, int n) {}\n"
                                << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  auto spec_with = [&](const std::string& name, const std::string& parameters,
                       const std::string& baseline) {
    std::ofstream(other / "spec.yaml") << "kernel: {source: k.cu, name: " << name << R"(}
problem: {n: 64}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [A * 32], grid: [ceil(n / (A * 32))]}
parameters: )" << parameters
                                       << "\nbaseline: " << baseline << "\n";
    return Problem(load_spec((other / "spec.yaml").string(), {{"n", "256"}}));
  };
  // Another kernel name, the same spec file name and parameters.
  Problem renamed_kernel =
      spec_with("k2", "{A: [1, 2, 4], B: [0, 1, 2], FAIL: [0, 1]}", "{A: 1, B: 0, FAIL: 0}");
  SearchResult second = run_search(renamed_kernel, runner, compiler, *store, {});
  EXPECT_TRUE(prior_from_store(*store, second.workload, prior_key(renamed_kernel)).empty());
  // The same kernel name and file name, other parameters: another kernel's space.
  Problem other_space = spec_with("k", "{A: [1, 2, 4], C: [0, 1]}", "{A: 1, C: 0}");
  SearchResult third = run_search(other_space, runner, compiler, *store, {});
  EXPECT_TRUE(prior_from_store(*store, third.workload, prior_key(other_space)).empty());
  // The first spec's kernel still finds its own workload, and only that.
  EXPECT_EQ(prior_from_store(*store, third.workload, prior_key(problem())).size(), 1u);
}

TEST_F(SearchTest, TheStrategyContextCarriesPriorDataOnlyWhenAskedTo) {
  auto store = open_sqlite_store(":memory:");
  FakeCompiler compiler;
  FakeRunner runner;
  run_search(problem("", {{"n", "64"}}), runner, compiler, *store, {});
  Problem large = problem("", {{"n", "256"}});
  SearchResult second = run_search(large, runner, compiler, *store, {});
  const SearchBudget none(0, 0, SearchClock::now());
  StrategyContext with = strategy_context(large, *store, second.workload, 132, true, none);
  EXPECT_EQ(&with.space, &large.space());
  EXPECT_EQ(with.problem_values, large.problem_values());
  EXPECT_EQ(with.prior.size(), 1u);
  EXPECT_EQ(with.sm_count, 132);
  ASSERT_TRUE(with.launch);
  EXPECT_TRUE(with.launch(large.baseline_index(), large.problem_values()).has_value());
  ASSERT_TRUE(with.cost_model);
  EXPECT_NE(with.cost_model(), nullptr);
  EXPECT_EQ(with.planned_evaluations, 0u) << "no budget, no plan";
  StrategyContext without = strategy_context(large, *store, second.workload, 132, false, none);
  EXPECT_TRUE(without.problem_values.empty());
  EXPECT_TRUE(without.prior.empty());
  EXPECT_TRUE(without.launch);
}

TEST_F(SearchTest, TheStrategyContextCarriesTheBudgetsPlan) {
  Problem p = problem();
  auto store = open_sqlite_store(":memory:");
  const auto now = SearchClock::now();
  const uint64_t valid = p.space().count_valid();
  StrategyContext five = strategy_context(p, *store, 1, 132, false, SearchBudget(5, 0, now));
  EXPECT_EQ(five.planned_evaluations, 5u);
  EXPECT_EQ(five.planned_seconds, 0);
  StrategyContext many = strategy_context(p, *store, 1, 132, false, SearchBudget(1000, 0, now));
  EXPECT_EQ(many.planned_evaluations, valid) << "no more than the space holds";
  StrategyContext timed = strategy_context(p, *store, 1, 132, false, SearchBudget(0, 90, now));
  EXPECT_EQ(timed.planned_evaluations, valid);
  EXPECT_EQ(timed.planned_seconds, 90);
}

TEST(SearchBudget, LimitsProposalsAndTotalAndZeroIsNoLimit) {
  Scope scope;
  SearchSpace space({{"A", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}, false}}, {"A != 3"},
                    scope);
  const auto now = SearchClock::now();
  SearchBudget evaluations(5, 0, now);
  EXPECT_EQ(evaluations.total(space), 3u);
  EXPECT_EQ(evaluations.allow(4, 0), 4u);
  EXPECT_EQ(evaluations.allow(4, 3), 2u);
  EXPECT_EQ(evaluations.allow(4, 5), 0u);
  SearchBudget unlimited(0, 0, now);
  EXPECT_EQ(unlimited.allow(4, 1000), 4u);
  SearchBudget spent(0, 1, now - std::chrono::seconds(2));
  EXPECT_EQ(spent.allow(4, 0), 0u);
}

// Replays before keep_answered stored "not in the recording" as a runtime error: a search into
// such a database measures the config instead of reusing that.
TEST(StoredResults, AReplaysUnrecordedAnswerIsNotReused) {
  Measurement measured;
  measured.config_index = 2;
  measured.samples_ms = {1.0};
  StoredResults stored({unrecorded(1, R"({"A":1})"), measured}, false);
  EXPECT_EQ(stored.reusable(1), nullptr);
  EXPECT_FALSE(stored.contains(1));
  EXPECT_NE(stored.reusable(2), nullptr);
}

TEST(StoredResults, ReusesStoredResultsUnlessForcedAndNeverMeasuresTwice) {
  Measurement old;
  old.config_index = 7;
  old.samples_ms = {2};
  StoredResults plain({old}, false);
  ASSERT_NE(plain.reusable(7), nullptr);
  EXPECT_EQ(plain.reusable(8), nullptr);
  StoredResults forced({old}, true);
  EXPECT_EQ(forced.reusable(7), nullptr);
  EXPECT_NE(forced.latest(7), nullptr);
  Measurement again = old;
  again.samples_ms = {1};
  forced.add_measured(again);
  ASSERT_NE(forced.reusable(7), nullptr);
  EXPECT_EQ(forced.reusable(7)->samples_ms, std::vector<double>{1});
}

TEST(PipelineDepth, BatchWhenNothingOverlapsElseCompileAndGpuWorkers) {
  EXPECT_EQ(pipeline_depth(0, 4, false, 1, 4), 4u);
  EXPECT_EQ(pipeline_depth(0, 4, true, 8, 2), 24u);
  EXPECT_EQ(pipeline_depth(0, 4, true, 1, 0), 6u);
  EXPECT_EQ(pipeline_depth(2, 4, true, 8, 2), 4u);  // never below a batch
  EXPECT_EQ(pipeline_depth(0, 0, false, 1, 0), 1u);
}

TEST_F(SearchTest, CompileAllReportsEveryFailure) {
  Problem p = problem();
  FakeCompiler compiler;
  auto results = compile_all(p, compiler, "sm_90");
  EXPECT_EQ(results.size(), p.space().count_valid());
  size_t failed = 0;
  for (const auto& m : results) failed += m.status == Status::kCompileError;
  EXPECT_EQ(failed, results.size() / 2);
}

}  // namespace
}  // namespace gputune
