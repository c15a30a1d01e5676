// gputune search --mpi under a real mpirun, with the replay standing in for GPUs. Skipped
// visibly where Open MPI's mpirun is missing (tools/install-deps.sh installs it).
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "search/evaluation_pipeline.h"
#include "store/store.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

bool have_mpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

std::string mpirun(int ranks) {
  // Root in containers and CI: Open MPI refuses it unless told.
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
         "mpirun --oversubscribe --enable-recovery -n " + std::to_string(ranks) + " " +
         test::gputune_binary() + " ";
}

class MpiSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_mpirun()) GTEST_SKIP() << "no mpirun (apt-get install openmpi-bin libopenmpi-dev)";
    dir_ = fs::temp_directory_path() /
           ("gputune_mpi_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

const std::string kRecording = "/db/recordings/transpose_n_4096_NVIDIA_H200.csv";

std::vector<Measurement> stored(const std::string& db) {
  auto store = open_sqlite_store(db, true);
  const auto workloads = store->workloads();
  EXPECT_EQ(workloads.size(), 1u) << db;
  return workloads.empty() ? std::vector<Measurement>{} : store->measured(workloads.front().id);
}

std::set<uint64_t> configs(const std::vector<Measurement>& measurements) {
  std::set<uint64_t> out;
  for (const Measurement& m : measurements) out.insert(m.config_index);
  return out;
}

TEST_F(MpiSearch, FourRanksMeasureWhatOneProcessMeasures) {
  const std::string search = "search --replay " + test::source_dir() + kRecording +
                             " --strategy random --budget 40 --seed 3 -q --db ";
  auto single = testing::run_gputune(search + file("single.db"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const std::string command = mpirun(4) + search + file("mpi.db") + " --mpi > " + file("out.txt") +
                              " 2> " + file("err.txt");
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(file("err.txt")).rdbuf();
  const auto expected = stored(file("single.db"));
  EXPECT_EQ(expected.size(), 41u);  // the baseline, and 40 the budget allows
  EXPECT_EQ(configs(stored(file("mpi.db"))), configs(expected));
  std::ifstream out(file("out.txt"));
  const std::string text{std::istreambuf_iterator<char>(out), {}};
  EXPECT_NE(text.find("random, 41 measured"), std::string::npos) << text;  // rank 0 reports once
}

// The ranks compile what they measure: the record counts their compile processes (one each in
// a replay), not rank 0's, which only hands configs on.
TEST_F(MpiSearch, TheRecordCountsTheRanksCompilers) {
  const std::string command = mpirun(2) + "search --replay " + test::source_dir() + kRecording +
                              " --strategy random --budget 20 --seed 3 --json --db " +
                              file("mpi.db") + " --mpi > " + file("out.json") + " 2> " +
                              file("err.txt");
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(file("err.txt")).rdbuf();
  std::ifstream out(file("out.json"));
  const nlohmann::json json = nlohmann::json::parse(out);
  EXPECT_EQ(json["search"]["jobs"], 2) << json["search"].dump();
}

int cut_short(const std::vector<Measurement>& measurements) {
  int cut = 0;
  for (const Measurement& m : measurements) cut += m.cut_short != 0;
  return cut;
}

TEST_F(MpiSearch, RanksRaceAgainstTheWholeSearchsBest) {
  const std::string search = "search --replay " + test::source_dir() + kRecording +
                             " --strategy brute_force --budget 60 -q --db ";
  auto single = testing::run_gputune(search + file("single.db"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const std::string command = mpirun(2) + search + file("mpi.db") + " --mpi > " + file("out.txt") +
                              " 2> " + file("err.txt");
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(file("err.txt")).rdbuf();
  const int expected = cut_short(stored(file("single.db")));
  ASSERT_GT(expected, 5) << "the recording races: slow variants are cut short";
  // Batches reach the ranks in another order than one process's, so the counts may differ a
  // little; without the race limit no rank would cut any.
  EXPECT_GE(cut_short(stored(file("mpi.db"))), expected / 2);
}

// Ranks that each compile on a CPU set of their own, as ranks on separate hosts would (what
// bench/multi_gpu_bench.py's split mode launches: taskset per local rank under one mpirun),
// measure what one process measures.
TEST_F(MpiSearch, RanksOnSplitCpuSetsMeasureWhatOneProcessMeasures) {
  if (std::system("command -v taskset >/dev/null 2>&1") != 0) GTEST_SKIP() << "no taskset";
  cpu_set_t affinity;
  ASSERT_EQ(sched_getaffinity(0, sizeof affinity, &affinity), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &affinity)) cpus.push_back(c);
  }
  ASSERT_FALSE(cpus.empty());
  const std::string sets = std::to_string(cpus.front()) + " " + std::to_string(cpus.back());
  const std::string search = "search --replay " + test::source_dir() + kRecording +
                             " --strategy random --budget 30 --seed 5 -q --db ";
  auto single = testing::run_gputune(search + file("single.db"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const std::string pin = "bash -c 'sets=(" + sets +
                          "); exec taskset -c \"${sets[${OMPI_COMM_WORLD_LOCAL_RANK:-0}]}\" "
                          "\"$@\"' rank ";
  std::string command = mpirun(2);
  command.insert(command.find(test::gputune_binary()), pin);
  command += search + file("mpi.db") + " --mpi > " + file("out.txt") + " 2> " + file("err.txt");
  ASSERT_EQ(std::system(command.c_str()), 0) << std::ifstream(file("err.txt")).rdbuf();
  EXPECT_EQ(configs(stored(file("mpi.db"))), configs(stored(file("single.db"))));
}

// The pid of the MPI rank `rank` whose command line names `marker`, or 0.
pid_t rank_pid(int rank, const std::string& marker) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmdline(entry.path() / "cmdline"), environ(entry.path() / "environ");
    const std::string command{std::istreambuf_iterator<char>(cmdline), {}};
    const std::string env{std::istreambuf_iterator<char>(environ), {}};
    if (command.find(marker) == std::string::npos || command.find("mpirun") == 0) continue;
    if (env.find(std::string("OMPI_COMM_WORLD_RANK=") + std::to_string(rank) + '\0') ==
        std::string::npos) {
      continue;
    }
    return static_cast<pid_t>(std::stol(name));
  }
  return 0;
}

TEST_F(MpiSearch, ARankThatDiesCostsOnlyItsVariantsInFlight) {
  const std::string db = file("mpi.db");
  const std::string search = "search --replay " + test::source_dir() + kRecording +
                             " --strategy random --budget 150 --seed 5 -q";
  const std::string command = "(" + mpirun(4) + search + " --replay-real-time --mpi --db " + db +
                              " > " + file("out.txt") + " 2> " + file("err.txt") + "; echo $? > " +
                              file("rc") + ") &";
  ASSERT_EQ(std::system(command.c_str()), 0);
  pid_t victim = 0;
  for (int i = 0; i < 200 && victim == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    victim = rank_pid(2, db);
  }
  ASSERT_NE(victim, 0) << "rank 2 never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(victim, SIGKILL);
  for (int i = 0; i < 1200 && !fs::exists(file("rc")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::ifstream rc(file("rc"));
  int code = -1;
  rc >> code;
  std::ifstream err_file(file("err.txt"));
  const std::string err{std::istreambuf_iterator<char>(err_file), {}};
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(err.find("rank 2"), std::string::npos) << err;

  auto single = testing::run_gputune(search + " --db " + file("single.db"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const auto measured = stored(db);
  EXPECT_EQ(configs(measured), configs(stored(file("single.db"))));
  size_t lost = 0;
  for (const Measurement& m : measured) {
    if (m.message.find("rank 2") != std::string::npos) {
      ++lost;
      EXPECT_EQ(m.status, Status::kRuntimeError);
    }
  }
  // A replay rank (one serial compiler, one GPU) takes what one such process keeps in flight.
  EXPECT_LE(lost, pipeline_depth(0, 1, true, 1, 1));
  EXPECT_GE(lost, 1u) << err;
}

TEST(MpiOption, IsRefusedWithShard) {
  auto result = testing::run_gputune("search transpose --mpi --shard 0/2 --strategy brute_force");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--mpi and --shard"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace gputune
