// `gputune analyze --all | --top | --configs` against a fake ncu that plays the launcher's part
// (writes the manifest, prints a row per launch): rows mapped to configs in order, a launcher
// that dies midway, variants that do not compile, and the counters stored.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "gputune/analysis.h"
#include "gputune/error.h"
#include "search/search.h"
#include "support/run_gputune.h"
#include "support/synthetic_recording.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Plays ncu and the launcher: one manifest line and one ncu row per --config-json, the rows
// alternating between the PAD=0 (shared memory) and PAD=1 (memory bound) captures. With a file
// `crash_at` holding K, its first run stops before the K-th variant and exits with 1.
constexpr const char* kFakeNcu = R"(#!/bin/sh
dir=$(dirname "$0")
echo "$*" >>"$dir/calls"
runs=$(($(cat "$dir/runs" 2>/dev/null || echo 0) + 1))
echo $runs >"$dir/runs"
crash_at=-1
[ "$runs" = 1 ] && [ -f "$dir/crash_at" ] && crash_at=$(cat "$dir/crash_at")
manifest=""
while [ $# -gt 0 ]; do
  case "$1" in
    --manifest) manifest="$2"; shift ;;
    --config-json) printf '%s\n' "$2" >>"$dir/configs.$runs" ;;
  esac
  shift
done
head -2 "$dir/pad0.csv"
i=0
while read -r config; do
  if [ "$i" = "$crash_at" ]; then exit 1; fi
  escaped=$(printf '%s' "$config" | sed 's/"/\\"/g')
  printf '{"config":"%s","launched":true,"message":""}\n' "$escaped" >>"$manifest"
  if [ $((i % 2)) = 0 ]; then sed -n 3p "$dir/pad0.csv"; else sed -n 3p "$dir/pad1.csv"; fi
  i=$((i + 1))
done <"$dir/configs.$runs"
)";

class AnalyzeBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_analyze_batch_" + std::to_string(getpid()));
    fs::create_directories(dir_ / "ncu");
    const std::string fixtures = test::source_dir() + "/tests/fixtures/ncu/";
    fs::copy_file(fixtures + "transpose_pad0.raw.csv", dir_ / "ncu" / "pad0.csv");
    fs::copy_file(fixtures + "transpose_pad1.raw.csv", dir_ / "ncu" / "pad1.csv");
    std::ofstream(dir_ / "ncu" / "ncu") << kFakeNcu;
    chmod((dir_ / "ncu" / "ncu").c_str(), 0755);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The synthetic spec, measured into a database; `refuse_tx8`: its kernel does not compile
  // with TX=8.
  std::string measured_spec(bool refuse_tx8 = false) {
    spec_ = testing::write_synthetic_spec(dir_);
    if (refuse_tx8) {
      std::ofstream(dir_ / "k.cu") << "#if TX == 8\n#error TX=8 is not supported\n#endif\n"
                                   << "extern \"C\" __global__ void k(float* out, int n) {}\n";
    }
    Problem problem(load_spec(spec_, {}));
    testing::SyntheticRunner runner(problem.space(), 1024, 0);
    auto compiler = make_replay_compiler();
    auto store = open_sqlite_store(db());
    SearchOptions options;
    options.strategy = "brute_force";
    options.budget_evaluations = 40;
    workload_ = run_search(problem, runner, *compiler, *store, options).workload;
    return spec_;
  }

  AnalyzeManyRequest request() {
    AnalyzeManyRequest r;
    r.base.spec = spec_;
    r.base.db = db();
    r.base.ncu = (dir_ / "ncu" / "ncu").string();
    r.base.self = "/bin/true";
    r.base.timeout_s = 30;
    r.cache_dir = (dir_ / "cache").string();
    r.jobs = 2;
    return r;
  }

  std::string db() const { return (dir_ / "runs.db").string(); }
  std::string calls() const {
    std::ifstream in(dir_ / "ncu" / "calls");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
  std::string spec_;
  int64_t workload_ = 0;
};

TEST_F(AnalyzeBatchTest, MapsEachLaunchToItsConfigInOrderAndStoresTheCounters) {
  measured_spec();
  AnalyzeManyRequest r = request();
  r.configs_file = (dir_ / "configs.txt").string();
  std::ofstream(r.configs_file) << "# fastest guesses\nTX=16,TY=4\nTX=32,TY=4\nTX=64,TY=4\n"
                                << "TX=16,TY=8\n\nTX=32,TY=8\nTX=64,TY=2\n";
  r.batch = 4;
  std::vector<AnalyzeProgress> seen;
  const AnalyzeManyOutcome outcome =
      analyze_many(r, [&](const AnalyzeProgress& p) { seen.push_back(p); });
  ASSERT_EQ(outcome.variants.size(), 6u);
  EXPECT_EQ(outcome.profiled, 6u);
  EXPECT_EQ(outcome.failed, 0u);
  EXPECT_EQ(outcome.batches, 2u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_TRUE(outcome.variants[i].profiled) << i << ": " << outcome.variants[i].message;
    EXPECT_EQ(outcome.variants[i].step, i % 2 == 0 ? "shared memory" : "global memory") << i;
    EXPECT_TRUE(outcome.variants[i].stored);
    EXPECT_FALSE(outcome.variants[i].key_number.empty());
  }
  EXPECT_NE(outcome.variants[0].config.find("\"TX\":16"), std::string::npos);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen.back().done, 6u);
  EXPECT_EQ(seen.back().total, 6u);
  // One ncu run per batch, collecting that batch's launches of the variant's own kernel only,
  // inside the launcher's profiler ranges.
  const std::string argv = calls();
  EXPECT_NE(argv.find("-c 4 "), std::string::npos) << argv;
  EXPECT_NE(argv.find("-c 2 "), std::string::npos) << argv;
  EXPECT_NE(argv.find("--profile-from-start off"), std::string::npos) << argv;
  EXPECT_NE(argv.find("regex:^k$"), std::string::npos) << argv;
  EXPECT_NE(argv.find("profile-launch"), std::string::npos) << argv;

  auto store = open_sqlite_store(db());
  const auto stored = store->all_counters(workload_);
  EXPECT_EQ(stored.size(), 6u);
  for (const auto& [index, counters] : stored) {
    EXPECT_EQ(counters.source, "ncu");
    EXPECT_FALSE(counters.values.empty());
  }
}

TEST_F(AnalyzeBatchTest, ALauncherThatDiesMidwayCostsOneVariantAndTheRestRunAgain) {
  measured_spec();
  std::ofstream(dir_ / "ncu" / "crash_at") << "2\n";
  AnalyzeManyRequest r = request();
  r.top = 5;
  const AnalyzeManyOutcome outcome = analyze_many(r);
  ASSERT_EQ(outcome.variants.size(), 5u);
  EXPECT_EQ(outcome.batches, 2u);
  EXPECT_EQ(outcome.profiled, 4u);
  EXPECT_EQ(outcome.failed, 1u);
  EXPECT_FALSE(outcome.variants[2].profiled);
  EXPECT_NE(outcome.variants[2].message.find("did not come back"), std::string::npos)
      << outcome.variants[2].message;
  for (size_t i : {0, 1, 3, 4}) {
    EXPECT_TRUE(outcome.variants[i].profiled) << i << ": " << outcome.variants[i].message;
  }
  // Fastest first, as the table shows them.
  for (size_t i = 1; i < outcome.median_ms.size(); ++i) {
    EXPECT_LE(outcome.median_ms[i - 1], outcome.median_ms[i]);
  }
  auto store = open_sqlite_store(db());
  EXPECT_EQ(store->all_counters(workload_).size(), 4u);
}

TEST_F(AnalyzeBatchTest, UnprofiledResumesWithTheVariantsThatHaveNoCountersYet) {
  measured_spec();
  AnalyzeManyRequest r = request();
  r.top = 3;
  const AnalyzeManyOutcome first = analyze_many(r);
  ASSERT_EQ(first.profiled, 3u);
  EXPECT_EQ(first.compile_cached, 0u);

  r.top = 5;
  r.unprofiled = true;
  const AnalyzeManyOutcome rest = analyze_many(r);
  EXPECT_EQ(rest.already_profiled, 3u);
  ASSERT_EQ(rest.variants.size(), 5u) << "--top counts the variants still without counters";
  EXPECT_EQ(rest.profiled, 5u);
  std::set<std::string> configs;
  for (const AnalysisOutcome& v : first.variants) configs.insert(v.config);
  for (const AnalysisOutcome& v : rest.variants) {
    EXPECT_EQ(configs.count(v.config), 0u) << v.config << " was profiled again";
  }
  EXPECT_EQ(open_sqlite_store(db())->all_counters(workload_).size(), 8u);

  r.unprofiled = false;
  r.top = 2;
  const AnalyzeManyOutcome again = analyze_many(r);
  EXPECT_EQ(again.already_profiled, 0u);
  EXPECT_EQ(again.variants.size(), 2u);
  EXPECT_EQ(again.compile_cached, 2u) << "the modules compiled the first time";
}

TEST_F(AnalyzeBatchTest, VariantsThatDoNotCompileAreSkippedAndSaySo) {
  measured_spec(/*refuse_tx8=*/true);
  AnalyzeManyRequest r = request();
  r.configs_file = (dir_ / "configs.txt").string();
  std::ofstream(r.configs_file) << "TX=8,TY=8\nTX=16,TY=4\nTX=32,TY=4\n";
  const AnalyzeManyOutcome outcome = analyze_many(r);
  ASSERT_EQ(outcome.variants.size(), 3u);
  EXPECT_EQ(outcome.compile_failed, 1u);
  EXPECT_FALSE(outcome.variants[0].profiled);
  EXPECT_NE(outcome.variants[0].message.find("does not compile"), std::string::npos)
      << outcome.variants[0].message;
  EXPECT_EQ(outcome.profiled, 2u);
  EXPECT_EQ(calls().find("\"TX\":8,"), std::string::npos) << "a failed compile reached ncu";
}

TEST_F(AnalyzeBatchTest, ABadConfigsLineNamesTheFileAndLine) {
  measured_spec();
  AnalyzeManyRequest r = request();
  r.configs_file = (dir_ / "configs.txt").string();
  std::ofstream(r.configs_file) << "TX=16\nTQ=4\n";
  try {
    analyze_many(r);
    FAIL() << "no error";
  } catch (const gputune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("configs.txt:2: "), std::string::npos) << e.what();
  }
}

TEST_F(AnalyzeBatchTest, AllWithoutAMeasuredWorkloadSaysToSearchFirst) {
  spec_ = testing::write_synthetic_spec(dir_);
  AnalyzeManyRequest r = request();
  r.all = true;
  try {
    analyze_many(r);
    FAIL() << "no error";
  } catch (const gputune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("run gputune search first"), std::string::npos)
        << e.what();
  }
}

TEST_F(AnalyzeBatchTest, TheCommandPrintsEachConfigAsNameValuePairsAndItsVerdict) {
  measured_spec();
  const testing::CommandResult r =
      testing::run_command("GPUTUNE_NCU=" + (dir_ / "ncu" / "ncu").string() + " " +
                           test::gputune_binary() + " analyze " + spec_ + " --top 2 --db " + db() +
                           " --cache-dir " + (dir_ / "cache").string() + " -j 2");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("TX="), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shared memory"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("2 of 2 variants profiled"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gputune
