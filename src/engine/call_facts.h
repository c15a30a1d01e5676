#pragma once
// What a kernel's calls and built-in reads mean for merging (engine-internal), and the constructs
// thread merge and block merge refuse before they look at index dependence.
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/parsed_kernel.h"

namespace gputune::engine {

// A set of merged dimensions: bit 0 x, bit 1 y.
using Dims = unsigned;
constexpr Dims kDimX = 1, kDimY = 2;
// 'x' -> kDimX, 'y' -> kDimY, anything else 0.
Dims dim_of(char component);

// Why a merge is not legal here, with the place: thrown by the analysis and the rewrites, caught
// by the transformation, which reports it as its refusal.
struct MergeRefusal {
  std::string message;
};

// What a call does, as far as merging is concerned; ordered, so that a helper is what the
// strongest of its calls is.
enum class CallKind {
  kPure,       // computes from its arguments only (math, user helpers without memory access)
  kReads,      // also reads memory (__ldg, helpers taking pointers to const)
  kEffect,     // writes memory or otherwise acts (atomics, printf, helpers writing memory)
  kBarrier,    // __syncthreads()
  kBlockVote,  // __syncthreads_count/and/or: a value over the real block's threads
  kWarp,       // shuffles, votes, __syncwarp, __activemask: a value over a warp's lanes
};

// The facts about the kernel's calls and built-ins that do not depend on the merged index.
class CallFacts {
 public:
  CallFacts(const ParsedKernel& kernel, std::string knob);
  CallKind kind(const clang::CallExpr* call) const;
  // Refuses (MergeRefusal) where the kernel or a helper it calls uses a construct the merges do
  // not handle, a warp function, a block-wide vote, or reads one of `builtins` (each with its
  // merged components) inside a helper or whole (`threadIdx` without .x).
  void check(const clang::FunctionDecl& kernel, const std::vector<Builtin>& builtins,
             Dims merged) const;
  // Whether a statement calls __syncthreads, directly or through a helper.
  bool has_barrier(const clang::Stmt* statement) const;
  // The first __syncthreads() call inside a statement that has one.
  const clang::Stmt* first_barrier(const clang::Stmt* statement) const;
  const ParsedKernel& kernel() const { return kernel_; }
  const std::string& knob() const { return knob_; }

 private:
  const ParsedKernel& kernel_;
  std::string knob_;
  mutable std::map<const clang::FunctionDecl*, CallKind> helper_kinds_;
  mutable std::map<const clang::Stmt*, bool> barriers_;
  CallKind helper_kind(const clang::FunctionDecl* function) const;
};

// The storage a glvalue names when it is a variable or an element or member of one held in the
// variable itself (`v`, `v.x`, `buf[i]` of a local array); nullptr for memory reached through
// a pointer.
const clang::VarDecl* storage_root(const clang::Expr* glvalue);
// The reference to that variable.
const clang::DeclRefExpr* storage_ref(const clang::Expr* glvalue);

// The glvalue a node reads as a whole: a load's operand, or what a struct is copied from;
// nullptr for any other node.
const clang::Expr* read_glvalue(const clang::Stmt* node);

// An assignment's or increment's target (`=`, `+=`, `++`, their operator calls); nullptr for
// any other node.
const clang::Expr* assigned_target(const clang::Stmt* node);

// Block-level code: a compound statement that stage_shared writes for the real block as it is
// after every merge (a tile's cooperative load over the launched threads, with constant
// extents), marked by its first statement, the declaration of `gputune_block_thread`. The
// merges copy it as written, once, and the index analyses see through it: it makes nothing
// depend on a merged index (docs/engine.md, "Block-level code").
constexpr const char* kBlockThread = "gputune_block_thread";
bool is_block_level(const clang::Stmt* node);

// Offers `found` every statement and expression under `root` (itself included; a parent
// before its children) until it returns true; whether it did.
bool any_node(const clang::Stmt* root, const std::function<bool(const clang::Stmt*)>& found);

}  // namespace gputune::engine
