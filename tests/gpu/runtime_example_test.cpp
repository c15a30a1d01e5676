// The example application (examples/runtime_select, built in-tree as gputune_runtime_select) on
// the GPU at sizes that were never tuned, from a release database made here: transpose's best
// config from a replayed recording and an SGEMM config, compiled with NVRTC for this GPU and
// embedded as cubins. The run checks its results against the CPU itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gputune/runtime.h"
#include "gputune/session.h"
#include "kernel_test_support.h"
#include "support/release_writer.h"
#include "support/run_gputune.h"

namespace gputune::test {
namespace {

namespace fs = std::filesystem;

// What the run time reads of a spec (docs/release-format.md), from the spec at these values.
std::string spec_json(const Problem& problem) {
  const Spec& spec = problem.spec();
  nlohmann::ordered_json out;
  for (const auto& [name, value] : problem_info(spec).values) out["problem"][name] = value;
  auto value_json = [](const Value& v) {
    return v.is_number() ? nlohmann::ordered_json(v.as_number()) : nlohmann::ordered_json(v.text());
  };
  const std::vector<Value> baseline = problem.space().values(problem.baseline_index());
  const auto& dimensions = problem.space().dimensions();
  for (size_t d = 0; d < dimensions.size(); ++d) {
    auto& list = out["parameters"][dimensions[d].name] = nlohmann::ordered_json::array();
    for (const Value& v : dimensions[d].values) list.push_back(value_json(v));
    out["baseline"][dimensions[d].name] = value_json(baseline[d]);
  }
  out["constraints"] = nlohmann::ordered_json::array();
  for (const ExprText& c : spec.constraints) out["constraints"].push_back(c.text);
  for (const LaunchSpec& l : spec.launches) {
    nlohmann::ordered_json launch{{"kernel", l.kernel_name.text}};
    for (const ExprText& e : l.block) launch["block"].push_back(e.text);
    for (const ExprText& e : l.grid) launch["grid"].push_back(e.text);
    if (l.dynamic_shared_bytes) launch["shared_bytes"] = l.dynamic_shared_bytes->text;
    if (l.when) launch["when"] = l.when->text;
    out["launch"].push_back(launch);
  }
  return out.dump();
}

// Adds the kernel of `space` with these configs ("TILE=64 VEC=4"; "" the baseline) kept at
// the harness's problem, ranked in the order given, each compiled for this GPU and embedded.
void add_kernel(testing::ReleaseWriter& w, int64_t device, const std::string& space,
                const Overrides& at, const std::vector<std::string>& configs) {
  KernelHarness h(space, at);
  const Problem& problem = h.problem();
  const int64_t kernel =
      w.kernel(problem.spec().kernel_name.text, spec_json(problem), problem.spec().source_hash());
  const std::string arch = list_gpus().at(0).arch();
  const auto compiler = make_nvrtc_compiler();
  nlohmann::ordered_json problem_json;
  for (const auto& [name, value] : problem_info(problem.spec()).values) problem_json[name] = value;
  for (size_t rank = 0; rank < configs.size(); ++rank) {
    const Variant v = h.variant(configs[rank]);
    const CompiledKernel compiled = compiler->compile(compile_request(problem, v, arch));
    ASSERT_TRUE(compiled.ok) << compiled.log;
    const int64_t id = w.config(kernel, v.config, configs[rank].empty());
    w.choice(kernel, device, problem_json.dump(), static_cast<int>(rank), id, 1.0 + rank,
             compiled.registers, compiled.shared_bytes);
    w.code(id, arch, "cubin", compiled.lowered_names.at(0), compiled.image);
  }
}

// transpose's best config in a database, as "TILE=64 VEC=4 ..." for the harness.
std::string best_config(const std::string& db, const std::string& spec) {
  const auto best = testing::run_gputune("best " + spec + " --set n=4096 --db " + db + " --json");
  if (best.exit_code != 0) return "";
  const auto rows = nlohmann::json::parse(best.out, nullptr, false);
  if (!rows.is_array() || rows.empty()) return "";
  std::string words;
  for (const auto& [name, value] : rows[0]["best"]["config"].items()) {
    words += (words.empty() ? "" : " ") + name + "=" +
             (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return words;
}

TEST(RuntimeExample, RunsAtUntunedSizesWithEmbeddedCode) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  const fs::path dir =
      fs::temp_directory_path() / ("gputune_runtime_gpu_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // The recording was made with an older transpose spec, kept beside it (db/recordings/README.md);
  // its best config is also a config of today's space.
  const std::string spec = source_dir() + "/db/recordings/spaces-f402b6b/spaces/transpose.yaml";
  const std::string db = (dir / "transpose.db").string();
  const auto search =
      testing::run_gputune("search " + spec + " --set n=4096 --replay " + source_dir() +
                           "/db/recordings/transpose_n_4096_NVIDIA_H200.csv --db " + db + " -q");
  ASSERT_EQ(search.exit_code, 0) << search.err;
  std::string transpose_best = best_config(db, spec);
  try {
    KernelHarness("transpose", {{"n", "4096"}}).index(transpose_best);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the recording's best (" << transpose_best
                  << ") is not in today's space: " << e.what();
    transpose_best = "SHARED=1 TILE=32 PAD=1 MERGE_Y=4 VEC=1";
  }

  const std::string release = (dir / "shipped.gtrel").string();
  const runtime::DeviceDescription gpu = runtime::DeviceDescription::current(0);
  {
    testing::ReleaseWriter w(release);
    const int64_t device = w.device(gpu.name, gpu.cc_major, gpu.cc_minor, gpu.sm_count);
    add_kernel(w, device, "transpose", {{"n", "4096"}}, {transpose_best, ""});
    add_kernel(w, device, "sgemm", {{"m", "1024"}, {"n", "1024"}, {"k", "1024"}},
               {"BM=128 BN=128 BK=8 TM=8 TN=8 WX=16 ASYNC=0 STAGES=2 PAD=4 UNROLL=16", ""});
  }
  const std::string example =
      (fs::path(gputune_binary()).parent_path() / "gputune_runtime_select").string();
  ASSERT_TRUE(fs::exists(example)) << example;
  // Sizes no tile divides and none of them tuned: the nearest problem's configs, bounds-checked.
  const auto run =
      testing::run_command(example + " " + release + " --transpose 3001 --sgemm 1000 777 300");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("transpose: tier nearest_problem"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("sgemm: tier nearest_problem"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("correct (every element"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("correct (2000 sampled"), std::string::npos) << run.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune::test
