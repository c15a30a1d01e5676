#include "compile/compiler_wire.h"

namespace gputune::wire {

void put(Writer& w, const CompileRequest& q) {
  w.str(q.source).str(q.source_name).str(q.headers_hash).strings(q.kernel_name_expressions);
  w.strings(q.options).str(q.arch).str(q.refusal);
}
void get(Reader& r, CompileRequest* q) {
  q->source = r.str();
  q->source_name = r.str();
  q->headers_hash = r.str();
  q->kernel_name_expressions = r.strings();
  q->options = r.strings();
  q->arch = r.str();
  q->refusal = r.str();
}

void put(Writer& w, const CompiledKernel& k) {
  w.u32(k.ok ? 1 : 0).str(k.log).str(k.image).strings(k.lowered_names);
  w.i64(k.registers).i64(k.shared_bytes).i64(k.spill_bytes).f64(k.compile_ms);
  w.u32(k.cached ? 1 : 0);
}
void get(Reader& r, CompiledKernel* k) {
  k->ok = r.u32() != 0;
  k->log = r.str();
  k->image = r.str();
  k->lowered_names = r.strings();
  k->registers = static_cast<int>(r.i64());
  k->shared_bytes = static_cast<int>(r.i64());
  k->spill_bytes = static_cast<int>(r.i64());
  k->compile_ms = r.f64();
  k->cached = r.u32() != 0;
}

}  // namespace gputune::wire
