#include "cluster/launcher.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cluster/rank_link.h"

namespace gputune {
namespace {

EnvironmentLookup environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

TEST(LocalRank, ComesFromWhicheverLauncherStartedTheRank) {
  auto ompi = local_rank_from(
      environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}));
  ASSERT_TRUE(ompi.has_value());
  EXPECT_EQ(ompi->rank, 1);
  EXPECT_EQ(ompi->size, 2);
  auto hydra = local_rank_from(environment({{"MPI_LOCALRANKID", "3"}, {"MPI_LOCALNRANKS", "4"}}));
  ASSERT_TRUE(hydra.has_value());
  EXPECT_EQ(hydra->rank, 3);
  EXPECT_EQ(hydra->size, 4);
  auto slurm = local_rank_from(environment({{"SLURM_LOCALID", "2"}}));
  ASSERT_TRUE(slurm.has_value());
  EXPECT_EQ(slurm->rank, 2);
  EXPECT_EQ(slurm->size, 0) << "srun gives no plain per-host count";
  EXPECT_FALSE(local_rank_from(environment({})).has_value());
  EXPECT_FALSE(local_rank_from(environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "x"}})).has_value());
}

TEST(LocalShare, DealsTheHostsGpusSoThatRanksNeverShareOneWhileThereAreEnough) {
  const std::vector<int> four = {0, 1, 2, 3};
  EXPECT_EQ(local_share(four, {0, 2}), (std::vector<int>{0, 2}));
  EXPECT_EQ(local_share(four, {1, 2}), (std::vector<int>{1, 3}));
  EXPECT_EQ(local_share(four, {3, 4}), (std::vector<int>{3}));
  EXPECT_EQ(local_share({0, 1}, {1, 2}), (std::vector<int>{1}));
  // More ranks than GPUs, or a count the launcher did not give: one GPU each, some shared.
  EXPECT_EQ(local_share({0, 1}, {2, 3}), (std::vector<int>{0}));
  EXPECT_EQ(local_share({0, 1}, {3, 0}), (std::vector<int>{1}));
  EXPECT_TRUE(local_share({}, {0, 1}).empty());
}

TEST(RankCompileJobs, RanksThatShareAHostShareItsCpus) {
  EXPECT_EQ(rank_compile_jobs(32, 32, LocalRank{0, 2}), 16u);
  EXPECT_EQ(rank_compile_jobs(32, 32, LocalRank{1, 3}), 10u);
  EXPECT_EQ(rank_compile_jobs(32, 32, std::nullopt), 32u);
  EXPECT_EQ(rank_compile_jobs(32, 32, LocalRank{0, 0}), 32u) << "srun: count unknown";
  EXPECT_EQ(rank_compile_jobs(2, 2, LocalRank{0, 8}), 1u);
  // Bound by mpirun (or a cpuset): the rank's own CPUs are already its share.
  EXPECT_EQ(rank_compile_jobs(1, 32, LocalRank{0, 2}), 1u);
  EXPECT_EQ(rank_compile_jobs(8, 32, LocalRank{0, 4}), 8u);
}

TEST(Recovery, OpenMpi4SaysSoInTheEnvironment) {
  EXPECT_EQ(
      recovery_from(
          environment({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_MCA_orte_enable_recovery", "1"}}), {}),
      Recovery::kOn);
  EXPECT_EQ(recovery_from(environment({{"OMPI_COMM_WORLD_SIZE", "2"}}), {"mpirun", "-n", "2"}),
            Recovery::kOff);
}

TEST(Recovery, OpenMpi5IsReadOffTheLaunchersCommandLine) {
  const auto prte = environment({{"OMPI_COMM_WORLD_SIZE", "2"}, {"PRTE_LAUNCHED", "1"}});
  EXPECT_EQ(recovery_from(prte, {"/opt/ompi/bin/prterun", "--enable-recovery", "-n", "2", "x"}),
            Recovery::kOn);
  EXPECT_EQ(recovery_from(prte, {"mpirun", "-n", "2", "gputune", "--enable-recovery"}),
            Recovery::kOn)
      << "the token is looked for anywhere: gputune itself has no such option";
  EXPECT_EQ(recovery_from(prte, {"prterun", "-n", "2", "gputune"}), Recovery::kOff);
  EXPECT_EQ(recovery_from(prte, {"prted", "--prtemca", "x"}), Recovery::kUnknown)
      << "a rank on another host sees only its daemon";
  EXPECT_EQ(recovery_from(
                environment({{"PRTE_LAUNCHED", "1"}, {"PRTE_MCA_prte_enable_recovery", "true"}}),
                {"prted"}),
            Recovery::kOn);
  EXPECT_EQ(recovery_from(environment({}), {"srun"}), Recovery::kUnknown);
}

TEST(RankHello, CarriesTheRanksDepthAndTheUuidsOfItsGpus) {
  RankHello hello;
  hello.rank = 3;
  hello.host = "node7";
  hello.slots = 2;
  hello.depth = 40;
  hello.gpus = {"GPU-aaa", "GPU-bbb"};
  const RankHello back = read_hello(hello_payload(hello));
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "node7");
  EXPECT_EQ(back.slots, 2u);
  EXPECT_EQ(back.depth, 40u);
  EXPECT_EQ(back.gpus, hello.gpus);
}

TEST(RankHello, TwoRanksOnOneGpuAreNamed) {
  auto rank = [](int number, std::vector<std::string> gpus) {
    RankHello hello;
    hello.rank = number;
    hello.host = "node1";
    hello.device.name = "NVIDIA H200";
    hello.gpus = std::move(gpus);
    return hello;
  };
  EXPECT_TRUE(gpus_shared_by_ranks({rank(0, {"GPU-a"}), rank(1, {"GPU-b"})}).empty());
  EXPECT_TRUE(gpus_shared_by_ranks({rank(0, {}), rank(1, {})}).empty()) << "replay ranks";
  const auto lines =
      gpus_shared_by_ranks({rank(0, {"GPU-a", "GPU-b"}), rank(1, {"GPU-b"}), rank(2, {"GPU-b"})});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("ranks 0, 1 and 2"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("node1's GPU GPU-b"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace gputune
