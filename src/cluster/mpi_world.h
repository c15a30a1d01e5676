#pragma once
#include <string>

namespace gputune {

// The MPI job this process is a rank of. MPI only starts the ranks and tells them where rank 0
// listens: measurements travel over gputune's own sockets (cluster/rank_link.h), because Open
// MPI ends the whole job when one rank dies unless mpirun has --enable-recovery, and even then
// a collective call with a dead rank never returns.
struct MpiWorld {
  int rank = 0;
  int size = 1;
};

// Initialises MPI: Open MPI's libmpi, opened at run time, so that a gputune binary runs where
// Open MPI is not installed. Throws Error(kUsage) saying how to get it when this build has no
// MPI support (cmake -DGPUTUNE_MPI=OFF) or libmpi cannot be loaded.
MpiWorld mpi_start();
// `text` as rank 0 gave it, on every rank (MPI_Bcast).
std::string mpi_share_from_root(const std::string& text);
void mpi_finish();

}  // namespace gputune
