#pragma once
// Compile requests and results in the wire format (core/wire.h): for compiler processes and the
// module cache's files.
#include "compile/compiler.h"
#include "core/wire.h"

namespace gputune::wire {

void put(Writer& w, const CompileRequest& q);
void get(Reader& r, CompileRequest* q);
void put(Writer& w, const CompiledKernel& k);
void get(Reader& r, CompiledKernel* k);

}  // namespace gputune::wire
