#include "strategy/prior_pruning.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "model/features.h"
#include "replay/replay.h"
#include "spec/spec_loader.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

struct Recorded {
  std::string name;
  Recording recording;
  std::unique_ptr<Problem> problem;
};

std::vector<Recorded> project_recordings() {
  std::vector<Recorded> out;
  const fs::path dir = fs::path(test::source_dir()) / "db" / "recordings";
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".csv") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& path : paths) {
    Recorded r;
    r.name = path.filename().string();
    r.recording = load_recording(path.string());
    r.problem =
        std::make_unique<Problem>(recording_problem(r.recording, test::source_dir()).spec());
    out.push_back(std::move(r));
  }
  return out;
}

StrategyContext context_of(const Recorded& target, const std::vector<const Recorded*>& prior) {
  StrategyContext context(target.problem->space());
  context.problem_values = target.problem->problem_values();
  context.launch = launch_of(target.problem->spec());
  context.sm_count = target.recording.info.device.sm_count;
  context.cost_model = gaussian_process_factory();
  for (const Recorded* p : prior) {
    PriorData data;
    data.problem_values = p->problem->problem_values();
    data.label = p->name;
    data.sm_count = p->recording.info.device.sm_count;
    data.measurements = p->recording.measurements;
    context.prior.push_back(std::move(data));
  }
  return context;
}

// Each recording of db/recordings is searched with every other recording of its spec as prior
// data: what pruning keeps holds a config within 1% of the recording's best, the baseline is
// never pruned, and with two other sizes as the prior at least half the space goes.
TEST(PriorPruning, KeepsTheBestOnTheProjectsRecordings) {
  const std::vector<Recorded> all = project_recordings();
  ASSERT_GE(all.size(), 7u);
  size_t with_two_sizes = 0;
  for (const Recorded& target : all) {
    std::vector<const Recorded*> prior;
    for (const Recorded& other : all) {
      if (&other != &target && other.recording.info.spec_hash == target.recording.info.spec_hash) {
        prior.push_back(&other);
      }
    }
    ASSERT_FALSE(prior.empty()) << target.name;
    const StrategyContext context = context_of(target, prior);
    const uint64_t baseline = target.problem->baseline_index();
    const PruneResult result = prune_by_prior(context, baseline, PruneOptions{}, 1);
    EXPECT_TRUE(result.skipped.empty()) << target.name << ": " << result.skipped;
    EXPECT_EQ(result.prior_workloads, prior.size());
    EXPECT_FALSE(std::binary_search(result.pruned.begin(), result.pruned.end(), baseline));
    double best = std::numeric_limits<double>::infinity();
    double kept = best;
    for (const Measurement& m : target.recording.measurements) {
      if (m.status != Status::kOk || !target.problem->space().valid(m.config_index)) continue;
      best = std::min(best, m.median_ms());
      if (!std::binary_search(result.pruned.begin(), result.pruned.end(), m.config_index)) {
        kept = std::min(kept, m.median_ms());
      }
    }
    EXPECT_LE(kept, best * 1.01) << target.name << ": " << result.pruned.size() << " pruned";
    if (prior.size() >= 2) {
      ++with_two_sizes;
      EXPECT_GE(2 * result.pruned.size(), result.considered)
          << target.name << ": " << result.pruned.size() << " of " << result.considered;
      EXPECT_EQ(result.held_out, prior.size()) << target.name;
    }
  }
  EXPECT_EQ(with_two_sizes, 3u);  // the three SGEMM sizes
}

TEST(PriorPruning, PrunesNothingWithoutPriorData) {
  const std::vector<Recorded> all = project_recordings();
  const PruneResult result = prune_by_prior(context_of(all.front(), {}), 0, PruneOptions{}, 1);
  EXPECT_TRUE(result.pruned.empty());
  EXPECT_EQ(result.skipped, "no prior data");
  EXPECT_EQ(result.prior_workloads, 0u);
}

// A config whose blocks left most SMs idle where the prior measured it, and fill them here,
// is not judged by its slow prior time: with more blocks it may be the fastest.
TEST(PriorPruning, AConfigThatFillsTheGpuOnlyHereIsKept) {
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_prune_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {}\n";
  const std::string text = R"(kernel: {source: k.cu, name: k}
problem: {n: 4096}
arguments:
  - {name: out, type: float32, count: n, output: true}
  - {name: n, type: int32, value: n}
launch: {block: [32], grid: [ceil(n / (32 * A))]}
parameters: {A: [1, 2, 4, 8, 16, 32], B: [0, 1]}
baseline: {A: 1, B: 0}
)";
  Problem small(parse_spec(text, (dir / "spec.yaml").string(), {}));
  Problem large(parse_spec(text, (dir / "spec.yaml").string(), {{"n", "4194304"}}));
  // At n = 4096, 128 / A blocks on 132 SMs: the time grows with A, up to 32 times the best.
  PriorData prior;
  prior.problem_values = small.problem_values();
  prior.sm_count = 132;
  for (uint64_t i = 0; i < small.space().size(); ++i) {
    Measurement m;
    m.config_index = i;
    m.config = small.space().json(i);
    const double a = small.space().values(i)[0].as_number();
    m.samples_ms = {a * (1 + 0.01 * small.space().values(i)[1].as_number())};
    prior.measurements.push_back(m);
  }
  StrategyContext context(large.space());
  context.problem_values = large.problem_values();
  context.launch = launch_of(large.spec());
  context.sm_count = 132;
  context.cost_model = gaussian_process_factory();
  context.prior = {prior};
  const PruneResult filled = prune_by_prior(context, large.baseline_index(), PruneOptions{}, 1);
  EXPECT_TRUE(filled.pruned.empty()) << filled.pruned.size() << " pruned";
  // The same prior data at the same size (nothing fills more here) prunes the slow ones.
  StrategyContext same(small.space());
  same.problem_values = small.problem_values();
  same.launch = launch_of(small.spec());
  same.sm_count = 132;
  same.cost_model = gaussian_process_factory();
  prior.sm_count = 114;  // another GPU, so that this is not the prior's own workload
  same.prior = {prior};
  const PruneResult slow = prune_by_prior(same, small.baseline_index(), PruneOptions{}, 1);
  EXPECT_FALSE(slow.pruned.empty());
  for (uint64_t i : slow.pruned) EXPECT_GE(small.space().values(i)[0].as_number(), 2) << i;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
