// A release of an engine variant launched by the run-time library on the GPU: the rewritten
// kernel's embedded code, the merged geometry and the trailing arguments that
// Selection::launch appends (docs/engine.md, docs/runtime.md).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "gputune/runtime.h"
#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "release/release_builder.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "store/store.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(EngineReleaseGpu, AMergedVariantLaunchesFromTheReleaseAndComputesTheSame) {
  const std::vector<DeviceInfo> gpus = list_gpus();
  if (gpus.empty()) GTEST_SKIP() << "no GPU";
  std::string tmpl = (fs::temp_directory_path() / "gputune-engine-gpu-XXXXXX").string();
  const fs::path dir = mkdtemp(tmpl.data());
  for (const char* name : {"vector_add_int.yaml", "vector_add_int.cu"}) {
    fs::copy_file(test::source_dir() + "/tests/fixtures/engine/" + name, dir / name);
  }
  const Problem problem(load_spec((dir / "vector_add_int.yaml").string()));
  const std::string best =
      R"({"thread_merge_x":2,"merge_layout":"strided","block_merge_x":2,"launch_bounds":0})";
  uint64_t best_index = problem.space().size();
  for (uint64_t i = 0; i < problem.space().size(); ++i) {
    if (problem.space().json(i) == best) best_index = i;
  }
  ASSERT_LT(best_index, problem.space().size());
  const Variant variant = problem.variant(best_index);
  if (!variant.refusal.empty()) GTEST_SKIP() << "the engine refuses it: " << variant.refusal;

  const std::string db = (dir / "results.db").string();
  {
    auto store = open_sqlite_store(db);
    const int64_t w = store->workload(workload_key(problem, gpus[0], "13.0"));
    store->set_baseline(w, problem.baseline_index());
    std::vector<Measurement> measurements;
    for (uint64_t i : {problem.baseline_index(), best_index}) {
      Measurement m;
      m.config_index = i;
      m.config = problem.space().json(i);
      m.status = Status::kOk;
      const double ms = i == best_index ? 1.0 : 2.0;
      m.samples_ms = {ms, ms, ms};
      measurements.push_back(m);
    }
    store->commit(w, measurements);
  }
  ReleaseOptions options;
  options.databases = {db};
  options.top = 1;
  options.architectures = {gpus[0].arch()};
  CompilePool pool(1);
  const std::string release = (dir / "release.db").string();
  write_release_files(build_release_model(options, &pool), release, false);

  const runtime::Selector selector = runtime::Selector::open({release}, {true});
  const runtime::Selection s =
      selector.select("vector_add", {}, runtime::DeviceDescription::current(0));
  ASSERT_TRUE(s.has_code()) << s.explanation;
  ASSERT_EQ(s.launches.size(), 1u);
  EXPECT_EQ(s.launches[0].block[0], 256u);  // 256 / 2 * 2
  EXPECT_EQ(s.launches[0].grid[0], 196u);   // ceil(391 / 2)
  EXPECT_EQ(s.launches[0].trailing_arguments, std::vector<uint32_t>{391});

  const int n = 100003;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * static_cast<float>(i % 97);
    b[i] = 1.0f / static_cast<float>(1 + i % 13);
  }
  runtime::DeviceBuffer da(n * sizeof(float)), db_(n * sizeof(float)), dc(n * sizeof(float));
  da.upload(a.data());
  db_.upload(b.data());
  dc.upload(c.data());
  uint64_t pc = dc.address(), pa = da.address(), pb = db_.address();
  int count = n;
  void* arguments[] = {&pc, &pa, &pb, &count};
  s.launch(arguments);
  runtime::synchronize();
  dc.download(c.data());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
