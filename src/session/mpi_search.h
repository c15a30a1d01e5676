#pragma once
#include <atomic>

#include "gputune/session.h"

namespace gputune {

// `gputune search --mpi` on every rank of the MPI job (docs/cluster.md).
SearchOutcome mpi_search(const SearchRequest& request, const ProgressCallback& progress,
                         const std::atomic<bool>* stop);

}  // namespace gputune
