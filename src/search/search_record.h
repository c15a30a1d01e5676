#pragma once
#include "compile/compiler.h"
#include "gputune/measurement.h"
#include "store/store.h"

namespace gputune {

// Where a search's time went, one evaluation or compilation at a time.
void account_measurement(SearchRecord& record, const Measurement& m);
void account_compilation(SearchRecord& record, const CompiledKernel& kernel);

}  // namespace gputune
