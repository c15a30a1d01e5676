#pragma once
// Which parts of a kernel depend on a merged index (engine-internal): the facts thread merge and
// block merge rewrite by. Thread merge asks about threadIdx.x/y (the copies one real thread
// runs), block merge about blockIdx.x/y (the sub-blocks one real block holds). Each merged
// dimension is tracked on its own, so that a statement that depends on x only is replicated
// along x only.
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <functional>
#include <map>
#include <set>

#include "engine/call_facts.h"

namespace gputune::engine {

// "threadIdx.x", "blockIdx.x and blockIdx.y": the components of a built-in, for messages.
std::string dims_text(const char* builtin, Dims dims);

class IndexDependence {
 public:
  struct Source {
    Builtin builtin;  // kThreadIdx (thread merge) or kBlockIdx (block merge)
    Dims merged;      // the components of it that differ between the merged copies
    // Block merge: a __shared__ variable belongs to one (virtual) block, like a local to a
    // thread; thread merge: it is memory every copy sees.
    bool shared_is_private = false;
  };
  // `forced`: dimensions a variable depends on whatever the analysis finds (block merge's
  // shared arrays read in the phase they are written).
  IndexDependence(const CallFacts& facts, const clang::FunctionDecl& function, Source source,
                  const std::map<const clang::VarDecl*, Dims>& forced = {});

  // The merged dimensions an expression's value or a statement's effect depends on: those of
  // the index it reads, of the dependent variables it reads or writes, and all of them for a
  // call with effects (each copy's atomicAdd returns its own value).
  Dims dims(const clang::Stmt* node) const;
  Dims dims(const clang::VarDecl* variable) const;
  // The dimensions a statement must run once per copy of: its own, or all of them where it acts
  // on memory each time it runs (`a[i] += v`, atomics) even if nothing in it depends on the
  // index.
  Dims replication(const clang::Stmt* node) const;
  // The dimensions on which whether and how often a statement's parts run depends: an if's or
  // switch's condition; a loop's condition and its breaks, continues and returns under
  // dependent conditions.
  Dims control(const clang::Stmt* statement) const;
  // A variable each copy has its own of: locals and parameters, and __shared__ variables for
  // block merge.
  bool is_private(const clang::VarDecl* variable) const;
  // Whether a glvalue lies in memory: not in a variable of the copy's own, nor a built-in.
  bool in_memory(const clang::Expr* glvalue) const;
  // Whether a node reads memory, or calls anything but a pure function.
  bool reads_memory(const clang::Stmt* node) const;
  // Whether a node computes from variables alone, with no effect but the assignment `top`
  // (may be nullptr) and no integer division by a value that depends on the merged index;
  // `skip` says which expressions not to look into.
  bool pure(const clang::Stmt* node, const clang::Stmt* top,
            const std::function<bool(const clang::Expr*)>& skip) const;
  Dims merged() const { return source_.merged; }

 private:
  friend class DependenceWalk;
  const CallFacts& facts_;
  const ParsedKernel& kernel_;
  Source source_;
  std::map<const clang::VarDecl*, Dims> variables_;
  std::map<const clang::Stmt*, Dims> exits_;  // loops and switches left under dependent control
  std::set<const clang::VarDecl*> escaped_;   // their address is taken: all dimensions
  mutable std::map<const clang::Stmt*, Dims> memo_;
  Dims compute(const clang::Stmt* node) const;
};

}  // namespace gputune::engine
