#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "gputune/session.h"
#include "store/store.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Two workloads whose recordings' names would be equal (two spec files of one stem, the same
// problem and GPU name, different kernels): each gets its own file; the first was lost.
TEST(ExportRecordings, WorkloadsWithOneFileNameGetOneFileEach) {
  const fs::path dir = fs::temp_directory_path() / ("gputune_export_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "results.db").string();
  {
    auto store = open_sqlite_store(db);
    for (const char* source : {"aaaa", "bbbb"}) {
      WorkloadKey key;
      key.spec_hash = std::string("spec-") + source;
      key.source_hash = source;
      key.spec_path = std::string("/specs/") + source + "/kernel.yaml";
      key.kernel_name = "kernel";
      key.problem_json = R"({"n":1024})";
      key.device.name = "NVIDIA H100";
      key.nvrtc_version = "13.0";
      const int64_t w = store->workload(key);
      Measurement m;
      m.config_index = 0;
      m.config = R"({"T":1})";
      m.status = Status::kOk;
      m.samples_ms = {1.0};
      store->commit(w, {m});
    }
  }
  const auto written = export_recordings(db, (dir / "out").string(), std::nullopt, "");
  ASSERT_EQ(written.size(), 2u);
  EXPECT_NE(written[0].first, written[1].first);
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir / "out")) files.insert(entry.path().string());
  EXPECT_EQ(files.size(), 2u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
