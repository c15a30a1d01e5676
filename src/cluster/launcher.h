#pragma once
// What the launcher that started this rank (Open MPI's mpirun, MPICH's Hydra, Slurm's srun) tells
// it through the environment and its own command line.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gputune {

// This rank's place among the ranks that the launcher started on the same host.
struct LocalRank {
  int rank = 0;
  int size = 1;  // 0 where the launcher does not say how many share the host
};

using EnvironmentLookup = std::function<const char*(const char*)>;

// From what mpirun (OMPI_COMM_WORLD_LOCAL_RANK/_SIZE), MPICH's Hydra (MPI_LOCALRANKID/NRANKS)
// or Slurm's srun (SLURM_LOCALID) put in the environment; nothing when none of them did.
std::optional<LocalRank> local_rank_from(const EnvironmentLookup& environment);
std::optional<LocalRank> local_rank_from_environment();

// `--devices local`: the host's GPUs dealt out to the ranks on it, GPU i to local rank
// i mod size, so that ranks never share a GPU while there are enough. With more ranks than GPUs
// (or an unknown count) each rank gets one GPU, local rank mod GPU count, and some share.
std::vector<int> local_share(const std::vector<int>& gpus, const LocalRank& local);

// The compiler processes a measuring rank starts when --jobs is not given: the CPUs it may use
// (`usable`), split among the ranks on its host when each may use all `host` CPUs
// (mpirun --bind-to none), so that together they start one per CPU.
size_t rank_compile_jobs(size_t usable, size_t host, const std::optional<LocalRank>& local);

// Whether a rank that dies leaves the job running (mpirun --enable-recovery). Open MPI 4 says so
// in the environment (OMPI_MCA_orte_enable_recovery); Open MPI 5 says it to no rank, so it is
// read off the command line of the mpirun that started this rank, which a rank on another host
// cannot see.
enum class Recovery { kOn, kOff, kUnknown };
// `launcher`: the command line of this rank's parent process, when it is mpirun (prterun) itself.
Recovery recovery_from(const EnvironmentLookup& environment,
                       const std::vector<std::string>& launcher);
Recovery recovery_of_this_rank();

}  // namespace gputune
