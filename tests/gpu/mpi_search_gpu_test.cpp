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

struct MpiRun {
  int rc = -1;
  std::string out, err, db;
};

// `ranks` ranks of a random transpose search; skips the test without a GPU or mpirun.
MpiRun run_mpi_search(const fs::path& dir, int ranks, const std::string& options) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  MpiRun run;
  run.db = (dir / "mpi.db").string();
  const std::string command =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun "
      "--enable-recovery --bind-to none -n " +
      std::to_string(ranks) + " " + test::gputune_binary() + " search " + test::source_dir() +
      "/spaces/transpose.yaml --set n=2048 --mpi --strategy random --budget 12 --seed 4 "
      "--fast --no-cache -q --db " +
      run.db + " " + options + " > " + (dir / "out.txt").string() + " 2> " +
      (dir / "err.txt").string();
  run.rc = std::system(command.c_str());
  std::ifstream err(dir / "err.txt"), out(dir / "out.txt");
  run.err.assign(std::istreambuf_iterator<char>(err), {});
  run.out.assign(std::istreambuf_iterator<char>(out), {});
  return run;
}

bool have_mpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("gputune_mpi_gpu_" + name + std::to_string(getpid()));
}

TEST(MpiSearchGpu, OneRankSearchesTransposeEndToEnd) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  if (!have_mpirun()) GTEST_SKIP() << "no mpirun (apt-get install openmpi-bin libopenmpi-dev)";
  const fs::path dir = scratch("one");
  const MpiRun run = run_mpi_search(dir, 1, "");
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_NE(run.out.find("search: random, "), std::string::npos) << run.out;

  auto store = open_sqlite_store(run.db, true);
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
  EXPECT_GE(ok, 6) << run.out;
  ASSERT_TRUE(workloads.front().best.has_value());
  fs::remove_all(dir);
}

TEST(MpiSearchGpu, TwoRanksOnOneGpuAreWarnedAbout) {
  if (list_gpus().empty()) GTEST_SKIP() << "no GPU";
  if (!have_mpirun()) GTEST_SKIP() << "no mpirun (apt-get install openmpi-bin libopenmpi-dev)";
  const fs::path dir = scratch("shared");
  const MpiRun run = run_mpi_search(dir, 2, "--devices 0");
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_NE(run.err.find("ranks 0 and 1 both measure on"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--devices local"), std::string::npos) << run.err;
  fs::remove_all(dir);
}

TEST(MpiSearchGpu, DevicesLocalGivesEachRankAGpuOfItsOwn) {
  const auto gpus = list_gpus();
  if (gpus.size() < 2) GTEST_SKIP() << "needs 2 GPUs, found " << gpus.size();
  if (!have_mpirun()) GTEST_SKIP() << "no mpirun (apt-get install openmpi-bin libopenmpi-dev)";
  const fs::path dir = scratch("local");
  const MpiRun run = run_mpi_search(dir, 2, "--devices local");
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.err.find("measure on"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("warning"), std::string::npos) << run.err;
  auto store = open_sqlite_store(run.db, true);
  const auto workloads = store->workloads();
  ASSERT_EQ(workloads.size(), 1u) << "identical GPUs share one workload";
  EXPECT_GE(store->measured(workloads.front().id).size(), 12u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
