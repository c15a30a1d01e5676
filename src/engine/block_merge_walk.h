#pragma once
// Block merge's analysis and statement walk (engine-internal): the sub-blocks of a merged block
// and their virtual ids, which shared arrays need one copy per sub-block, which statements fill
// the others (run by sub-block 0 alone), and which must not run in a sub-block that does not
// exist in the naive grid (they run under `gputune_active`).
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/index_dependence.h"
#include "engine/merge_text.h"

namespace gputune::engine {

struct BlockMergeStats {
  std::vector<const clang::VarDecl*> shared;      // shared arrays the sub-blocks share
  std::vector<const clang::VarDecl*> replicated;  // shared arrays with a copy per sub-block
};

class BlockMergeWalk {
 public:
  // Analyses the kernel; refuses (MergeRefusal) where block merge is not legal.
  BlockMergeWalk(KernelText& text, const CallFacts& facts, const clang::FunctionDecl& function,
                 int x, int y);
  ~BlockMergeWalk();
  // The kernel's body (from `{` to `}`) written for the merge.
  std::string body();
  // The parameters the kernel receives the naive grid's extents by: ", unsigned int
  // gputune_grid_x" (x first, then y; only the merged dimensions).
  std::string parameters(bool after_others) const;
  const BlockMergeStats& stats() const { return stats_; }

 private:
  class Rules;
  KernelText& text_;
  const CallFacts& facts_;
  const clang::FunctionDecl& function_;
  int n_[2];
  Dims merged_;
  bool barrier_;
  std::unique_ptr<IndexDependence> dep_;
  std::map<const clang::VarDecl*, Dims> arrays_;  // the kernel's shared variables
  std::string block_[2], sub_[2], grid_[2], active_;
  BlockMergeStats stats_;

  void refuse(const clang::Stmt* at, const std::string& what) const;
  std::string prologue(const std::string& indent) const;
  std::string index(Dims dims) const;
  std::optional<std::string> fill_guard(const clang::Stmt* node) const;
  bool holds_fill(const clang::Stmt* node) const;
  bool writes_outer_independent(const clang::Stmt* node) const;

  std::string statement(const clang::Stmt* node, const std::string& indent);
  std::string compound(const clang::CompoundStmt* node, bool top);
  std::string inside(const clang::Stmt* node, const std::string& indent);
  std::string declaration(const clang::DeclStmt* node, const std::string& indent);
};

}  // namespace gputune::engine
