#pragma once
#include "gputune/results.h"
#include "search/search.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {

ProblemInfo problem_info_of(const Problem& problem);
WorkloadInfo workload_info(const WorkloadSummary& summary);

}  // namespace gputune
