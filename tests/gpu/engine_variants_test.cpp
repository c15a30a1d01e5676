// Every variant of every naive kernel under tests/fixtures/engine and bench/engine, searched brute
// force on the GPU at the fixtures' ragged sizes (not multiples of the block or of the merge
// factors): each is correct against the baseline (the naive kernel as written), or left out of the
// space with a reason, or refused by the engine with its reason (or too large for the GPU). None is
// a wrong answer or a runtime error, and none is a compile error of NVRTC (a rewrite that does not
// compile). Covers whatever transformations the engine has registered.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gputune/session.h"
#include "process/gpu_list.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Searches every variant of `spec` brute force on the GPU (`sets`: --set options) and expects
// each to be correct against the baseline, refused with a reason or left out with one.
void expect_every_variant_correct_or_refused(const fs::path& spec, const std::string& sets) {
  SCOPED_TRACE(spec.string() + sets);
  const fs::path db = fs::temp_directory_path() / ("gputune_engine_" + std::to_string(getpid()));
  fs::remove(db);
  const auto result = testing::run_gputune("search " + spec.string() + sets +
                                           " --strategy brute_force --fast --json --top "
                                           "1000000 --db " +
                                           db.string());
  fs::remove(db);
  ASSERT_EQ(result.exit_code == 0 || result.exit_code == 1, true) << result.out << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  const nlohmann::json& counts = report["status_counts"];
  EXPECT_GT(counts.value("ok", 0), 0) << counts.dump();
  for (const char* wrong : {"wrong_answer", "runtime_error", "timeout"}) {
    EXPECT_EQ(counts.value(wrong, 0), 0) << wrong << ": " << report["failed"].dump(2);
  }
  for (const nlohmann::json& failed : report["failed"]) {
    const std::string message = failed.value("message", "");
    EXPECT_FALSE(message.empty()) << failed.dump();
    // A launch the GPU cannot take (registers, shared memory) says so; a compile error is
    // the engine's refusal ("file:line:column: knob: ..."), never NVRTC's ("file(line):
    // error"): the engine's rewrites compile.
    if (failed["status"] == "resource_exceeded") continue;
    EXPECT_EQ(failed["status"], "compile_error") << failed.dump();
    EXPECT_EQ(message.find("): error"), std::string::npos) << failed.dump();
  }
  for (const nlohmann::json& pruned : report.value("pruned", nlohmann::json::array())) {
    EXPECT_FALSE(pruned.value("reason", "").empty()) << pruned.dump();
  }
}

TEST(EngineVariants, EveryVariantIsCorrectOrRefusedWithAReason) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  size_t specs = 0;
  for (const auto& entry : fs::directory_iterator(test::source_dir() + "/tests/fixtures/engine")) {
    if (entry.path().extension() != ".yaml") continue;
    ++specs;
    expect_every_variant_correct_or_refused(entry.path(), "");
  }
  EXPECT_GE(specs, 6u);
}

// The naive kernels of bench/engine/ with every knob their spaces list (stage_shared too), at
// ragged sizes: each problem value in turn becomes 1000, 777, 333 (not multiples of a block,
// a tile or a merge factor), so the edges and the merged grids' last blocks are checked.
TEST(EngineVariants, EveryVariantOfTheBenchKernelsAtRaggedSizes) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  size_t specs = 0;
  for (const auto& entry : fs::directory_iterator(test::source_dir() + "/bench/engine")) {
    if (entry.path().extension() != ".yaml" || entry.path().stem() == "targets") continue;
    ++specs;
    const Spec spec = open_spec(entry.path().string());
    const int ragged[] = {1000, 777, 333};
    std::string sets;
    for (size_t i = 0; i < spec.problem.size(); ++i) {
      sets += " --set " + spec.problem[i].first + "=" + std::to_string(ragged[i % 3]);
    }
    expect_every_variant_correct_or_refused(entry.path(), sets);
  }
  EXPECT_GE(specs, 7u);
}

}  // namespace
}  // namespace gputune
