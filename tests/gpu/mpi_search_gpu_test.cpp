// gputune search --mpi with one rank on a real GPU, end to end. Skipped visibly without a GPU or
// without Open MPI's mpirun.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "process/gpu_list.h"
#include "store/store.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

TEST(MpiSearchGpu, OneRankSearchesTransposeEndToEnd) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no mpirun (apt-get install openmpi-bin libopenmpi-dev)";
  }
  const fs::path dir = fs::temp_directory_path() / ("gputune_mpi_gpu_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "mpi.db").string();
  const std::string command =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun "
      "--enable-recovery -n 1 " +
      test::gputune_binary() + " search " + test::source_dir() +
      "/spaces/transpose.yaml --set n=2048 --mpi --strategy random --budget 12 --seed 4 "
      "--fast --no-cache -q --db " +
      db + " > " + (dir / "out.txt").string() + " 2> " + (dir / "err.txt").string();
  const int rc = std::system(command.c_str());
  std::ifstream err(dir / "err.txt"), out(dir / "out.txt");
  const std::string err_text{std::istreambuf_iterator<char>(err), {}};
  const std::string out_text{std::istreambuf_iterator<char>(out), {}};
  ASSERT_EQ(rc, 0) << err_text;
  EXPECT_NE(out_text.find("search: random, "), std::string::npos) << out_text;

  auto store = open_sqlite_store(db, true);
  const auto workloads = store->workloads();
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads.front().key.device.name, list_gpus().front().name);
  const auto measured = store->measured(workloads.front().id);
  EXPECT_GE(measured.size(), 12u);
  int ok = 0;
  for (const auto& m : measured) {
    if (m.status != Status::kOk) continue;
    ++ok;
    EXPECT_GT(m.median_ms(), 0);
    EXPECT_GT(m.registers, 0) << "the rank's compiler reported the registers";
  }
  EXPECT_GE(ok, 6) << out_text;
  ASSERT_TRUE(workloads.front().best.has_value());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
