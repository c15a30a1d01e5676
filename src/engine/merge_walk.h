#pragma once
// The statement walk of thread merge (engine-internal): the kernel's body written again with
// each statement replicated once per copy of the dimensions it depends on, kept once where it
// depends on none, and run under per-copy predicates where its control depends on the index.
// Block merge runs the same analysis with one copy per real thread (block_merge.cpp).
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/index_dependence.h"
#include "engine/merge_text.h"

namespace gputune::engine {

// How many copies each merged dimension has, and the numbering of the copies of a set of
// dimensions: x fastest.
struct Factors {
  int x = 1, y = 1;
  int count(Dims dims) const { return (dims & kDimX ? x : 1) * (dims & kDimY ? y : 1); }
  // The copy's index along `dim` (kDimX or kDimY); 0 where `dims` does not hold it.
  int index(Dims dims, int copy, Dims dim) const;
  // The copy of `dims` with the given indices along x and y.
  int copy(Dims dims, int kx, int ky) const;
  // The copy of `to` that copy `copy` of `from` falls on.
  int project(Dims from, int copy, Dims to) const {
    return this->copy(to, index(from, copy, kDimX), index(from, copy, kDimY));
  }
};

struct ThreadMergeStats {
  int replicated = 0;                            // statements written once per copy
  int predicated = 0;                            // conditions turned into per-copy predicates
  std::vector<const clang::Expr*> shared_loads;  // loads hoisted, shared between copies
};

class ThreadMergeWalk {
 public:
  ThreadMergeWalk(KernelText& text, const CallFacts& facts, const IndexDependence& dependence,
                  Factors factors, bool consecutive);
  // The kernel's body (from `{` to `}`) written for the merge.
  std::string body(const clang::CompoundStmt* body);
  const ThreadMergeStats& stats() const { return stats_; }

 private:
  // The predicates statements run under at a point of the walk: one per copy of `dims`; none
  // at the kernel's top level, where every copy runs.
  struct Layer {
    int id = 0;
    int line = 0;  // of the condition that made them
    Dims dims = 0;
    std::vector<std::string> preds;
    std::vector<std::string> unions;  // declarations asked for while its region is written
    std::map<std::pair<Dims, int>, std::string> union_names;
    bool trivial() const { return preds.empty(); }
  };
  struct Hoist {
    Dims dims;
    std::vector<std::string> names;  // per copy of dims
  };
  // The edits of copy `copy` of a statement replicated over `dims`.
  class CopyRules : public EditRules {
   public:
    CopyRules(ThreadMergeWalk& walk, Dims dims, int copy) : walk_(walk), dims_(dims), copy_(copy) {}
    std::optional<std::string> builtin(Builtin builtin, char component) const override;
    std::optional<std::string> use(const clang::VarDecl* variable) const override;
    std::optional<std::string> declared(const clang::VarDecl* variable) const override {
      return use(variable);
    }
    std::optional<std::string> expression(const clang::Expr* expr) const override;

   protected:
    ThreadMergeWalk& walk_;
    const Dims dims_;
    const int copy_;
  };

  KernelText& text_;
  const CallFacts& facts_;
  const IndexDependence& dep_;
  const Factors factors_;
  const bool consecutive_;
  std::map<const clang::VarDecl*, std::vector<std::string>> names_;
  std::map<const clang::VarDecl*, int> layer_of_;  // the layer each local is declared in
  std::map<const clang::Expr*, Hoist> hoisted_;
  int next_layer_ = 1, next_pred_ = 0, next_union_ = 0, next_temp_ = 0;
  ThreadMergeStats stats_;

  const std::string& name(const clang::VarDecl* variable, int copy);
  std::string virtual_thread(char component, int k) const;
  std::string guard(Layer& layer, Dims dims, int copy);
  std::string any(const Layer& layer) const;
  void refuse(const clang::Stmt* at, const std::string& what) const;

  std::string statement(const clang::Stmt* node, Layer& layer, const std::string& indent);
  std::string compound(const clang::CompoundStmt* node, Layer& layer, bool tail);
  std::string children(const std::vector<const clang::Stmt*>& list, size_t from, unsigned start,
                       unsigned end, Layer& layer, bool tail);
  std::string early_return(const clang::IfStmt* branch, const std::vector<const clang::Stmt*>& rest,
                           unsigned after, Layer& layer);
  std::string body_of(const std::string& header, const clang::Stmt* body, Layer& layer,
                      const std::string& indent);
  std::string header(const clang::Stmt* node, const clang::Stmt* body,
                     std::vector<const clang::Stmt*> parts);
  std::string dependent_if(const clang::IfStmt* branch, Layer& layer, const std::string& indent);
  Layer predicates(const clang::Expr* cond, Layer& outer, bool negate, const Layer* base,
                   std::string& declarations, const std::string& indent);
  std::string region(const clang::Stmt* node, Layer& layer, const std::string& indent);
  std::string replicate(const clang::Stmt* node, Dims dims, Layer& layer, const std::string& indent,
                        bool guarded = true);
  std::string leaf(const clang::Stmt* node, Layer& layer, const std::string& indent);
  std::string declaration(const clang::DeclStmt* node, Layer& layer, const std::string& indent);
  std::string zero(const clang::Stmt* at, clang::QualType type) const;
  std::string hoist(const clang::Expr* root, Dims dims, Layer& layer, const std::string& indent);
  void hoistable(const clang::Stmt* node, Dims dims, bool top,
                 std::vector<const clang::Expr*>& found) const;
  bool pure(const clang::Stmt* node, const clang::Stmt* top) const;
  bool local_only(const clang::Stmt* node, const Layer& layer) const;
};

}  // namespace gputune::engine
