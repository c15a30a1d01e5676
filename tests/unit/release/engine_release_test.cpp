// A release of an engine variant (docs/engine.md): the run-time library launches it with the
// merged geometry and the trailing arguments, and the code it embeds is the rewritten kernel.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gputune/runtime.h"
#include "process/compile_pool.h"
#include "release/release_builder.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "store/store.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class EngineReleaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gputune-engine-release-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    // The fixtures, copied: the release reads the spec where the database says it was.
    for (const char* name :
         {"stencil2d_int.yaml", "stencil2d_int.cu", "vector_add_int.yaml", "vector_add_int.cu"}) {
      fs::copy_file(test::source_dir() + "/tests/fixtures/engine/" + name, dir_ / name);
    }
    for (const char* name : {"stencil_chain.yaml", "stencil_chain.cu"}) {
      fs::copy_file(test::source_dir() + "/bench/engine/" + name, dir_ / name);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  static DeviceInfo h100() {
    DeviceInfo d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.uuid = "GPU-test";
    d.cc_major = 9;
    d.sm_count = 132;
    d.driver_version = 13000;
    return d;
  }

  // Stores the baseline (2 ms) and `best` (1 ms, by its config JSON) of the spec.
  std::string store(const std::string& spec_name, const std::string& best) {
    const std::string db = (dir_ / "results.db").string();
    auto store = open_sqlite_store(db);
    const Problem problem(load_spec((dir_ / spec_name).string()));
    const int64_t w = store->workload(workload_key(problem, h100(), "13.0"));
    store->set_baseline(w, problem.baseline_index());
    std::vector<Measurement> measurements;
    for (uint64_t i = 0; i < problem.space().size(); ++i) {
      const bool is_best = problem.space().json(i) == best;
      if (i != problem.baseline_index() && !is_best) continue;
      Measurement m;
      m.config_index = i;
      m.config = problem.space().json(i);
      m.status = Status::kOk;
      const double ms = is_best ? 1.0 : 2.0;
      m.samples_ms = {ms, ms, ms};
      m.registers = 16;
      measurements.push_back(m);
    }
    EXPECT_EQ(measurements.size(), 2u) << best;
    store->commit(w, measurements);
    return db;
  }

  ReleaseOptions options(const std::string& db) const {
    ReleaseOptions o;
    o.databases = {db};
    o.embed_code = false;
    o.top = 1;
    o.created_at = "2026-01-01T00:00:00Z";
    return o;
  }

  fs::path dir_;
};

TEST_F(EngineReleaseTest, TheRunTimeLaunchesAMergedVariantWithItsGeometry) {
  const std::string best = R"({"thread_merge_x":1,"thread_merge_y":2,"merge_layout":"strided",)"
                           R"("block_merge_x":2,"block_merge_y":3})";
  const std::string release = (dir_ / "release.db").string();
  write_release_files(build_release_model(options(store("stencil2d_int.yaml", best)), nullptr),
                      release, false);
  const runtime::Selector selector = runtime::Selector::open({release}, {true});
  const runtime::Selection s = selector.select(
      "stencil2d", {}, runtime::DeviceDescription::described("NVIDIA H100 80GB HBM3", 9, 0, 132));
  ASSERT_EQ(s.tier, runtime::Tier::kExact) << s.explanation;
  EXPECT_EQ(s.number("block_merge_y"), 3);
  ASSERT_EQ(s.launches.size(), 1u);
  const runtime::LaunchGeometry& launch = s.launches[0];
  // The spec's block [32, 8] and grid [ceil(1001/32), ceil(517/8)] = [32, 65], merged as the
  // search launched it (space/problem.cpp and runtime/kernel_rules.cpp share core/launch_merge).
  EXPECT_EQ(launch.block, (std::array<uint32_t, 3>{64, 12, 1}));
  EXPECT_EQ(launch.grid, (std::array<uint32_t, 3>{16, 22, 1}));
  EXPECT_EQ(launch.trailing_arguments, (std::vector<uint32_t>{32, 65}));
  EXPECT_EQ(launch.argument_count, 4u);  // out, in, nx, ny; then the two extents
  EXPECT_NE(s.to_json().find(R"("trailing_arguments":[32,65])"), std::string::npos) << s.to_json();
  // The same geometry as the search's variant.
  const Problem problem(load_spec((dir_ / "stencil2d_int.yaml").string()));
  for (uint64_t i = 0; i < problem.space().size(); ++i) {
    if (problem.space().json(i) != best) continue;
    const Variant v = problem.variant(i);
    EXPECT_EQ(v.launches.at(0).block, launch.block);
    EXPECT_EQ(v.launches.at(0).grid, launch.grid);
    EXPECT_EQ(v.launches.at(0).trailing_arguments, launch.trailing_arguments);
  }
}

TEST_F(EngineReleaseTest, TheEmbeddedCodeIsTheRewrittenKernel) {
  const std::string best = R"({"thread_merge_x":1,"merge_layout":"strided","block_merge_x":1,)"
                           R"("launch_bounds":2})";
  CompilePool pool(1);
  ReleaseOptions o = options(store("vector_add_int.yaml", best));
  o.embed_code = true;
  o.architectures = {"sm_90"};  // a cubin, and PTX for compute_90
  const Release r = build_release_model(o, &pool);
  ASSERT_EQ(r.configs.size(), 1u);  // the best, far ahead of the baseline
  EXPECT_NE(r.configs[0].config_json.find(R"("launch_bounds":2)"), std::string::npos);
  ASSERT_EQ(r.code.size(), 2u);
  for (const ReleaseCode& code : r.code) {
    if (code.kind != "ptx") continue;
    // __launch_bounds__(256, 2) of the rewrite.
    EXPECT_NE(code.image.find(".maxntid 256, 1, 1"), std::string::npos) << code.image;
    EXPECT_NE(code.image.find(".minnctapersm 2"), std::string::npos) << code.image;
  }
}

// The run time launches the spec's launches one by one; a fused kernel takes the arguments of
// several, so a fused config is not released and the best unfused one (here the baseline) is.
TEST_F(EngineReleaseTest, FusedConfigsAreLeftOutWithAWarning) {
  const std::string fused = R"({"BX":64,"BY":32,"fuse":3,"thread_merge_y":4})";
  std::vector<std::string> said;
  const Release r = build_release_model(options(store("stencil_chain.yaml", fused)), nullptr,
                                        [&](const std::string& line) { said.push_back(line); });
  ASSERT_EQ(r.configs.size(), 1u);
  EXPECT_EQ(r.configs[0].config_json.find(R"("fuse":3)"), std::string::npos)
      << r.configs[0].config_json;
  bool warned = false;
  for (const std::string& line : said) {
    warned = warned || line.find("1 fused configs (fuse >= 2) left out") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  // Nor does the run time launch a fused config it is given some other way (an override): it
  // would pass the fused kernel one launch's arguments.
  const std::string release = (dir_ / "release.db").string();
  write_release_files(r, release, false);
  runtime::Selector selector = runtime::Selector::open({release}, {true});
  selector.add_override({r.kernels.at(0).name,
                         {{"BX", "64"}, {"BY", "32"}, {"fuse", "3"}, {"thread_merge_y", "4"}}});
  const runtime::Selection s = selector.select(
      r.kernels.at(0).name, {},
      runtime::DeviceDescription::described("NVIDIA H100 80GB HBM3", 9, 0, 132));
  EXPECT_NE(s.tier, runtime::Tier::kOverride) << s.explanation;
  EXPECT_NE(s.explanation.find("fuse = 3 makes one kernel of several launches, which the run "
                               "time cannot launch"),
            std::string::npos)
      << s.explanation;
}

}  // namespace
}  // namespace gputune
