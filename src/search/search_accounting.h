#pragma once
#include "compile/compiler.h"
#include "gputune/measurement.h"
#include "store/store.h"

namespace gputune {

// Where a search's time went, one evaluation or compilation at a time.
void account_measurement(SearchRecord& record, const Measurement& m);
void account_compilation(SearchRecord& record, const CompiledKernel& kernel);

// The GPU idle share (SearchRecord::gpu_idle_share) is known only for searches whose GPU
// measured: after begin_measuring, account_measurement adds each measurement's GPU busy time;
// the search sets measuring_s when the phase ends.
void begin_measuring(SearchRecord& record);

}  // namespace gputune
