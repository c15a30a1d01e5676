#include "engine/block_merge_walk.h"

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <set>

namespace gputune::engine {
namespace {

bool is_shared(const clang::VarDecl* variable) {
  return variable && variable->hasAttr<clang::CUDASharedAttr>();
}

// The variables declared inside a statement.
std::set<const clang::VarDecl*> declared_in(const clang::Stmt* node) {
  std::set<const clang::VarDecl*> found;
  any_node(node, [&](const clang::Stmt* at) {
    if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(at)) {
      for (const clang::Decl* decl : decls->decls()) {
        if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl)) found.insert(variable);
      }
    }
    return false;
  });
  return found;
}

// The shared variables a kernel reads in a phase (between two barriers) in which some thread
// writes them: one sub-block cannot fill such an array for the others, so each gets a copy.
class Phases {
 public:
  explicit Phases(const CallFacts& facts) : facts_(facts) {}
  using Written = std::set<const clang::VarDecl*>;
  std::set<const clang::VarDecl*> conflicts;

  Written walk(const clang::Stmt* node, Written written) {
    if (!node) return written;
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(node)) {
      for (const clang::Stmt* child : block->body()) written = walk(child, written);
      return written;
    }
    if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(node)) {
      written = walk(branch->getInit(), written);
      touch(branch->getCond(), written);
      Written then = walk(branch->getThen(), written);
      const Written otherwise = walk(branch->getElse(), written);
      then.insert(otherwise.begin(), otherwise.end());
      return then;
    }
    if (is_loop(node) || llvm::isa<clang::SwitchStmt>(node)) {
      // Twice round: what the end of one iteration writes, the start of the next may read.
      std::vector<const clang::Stmt*> parts;
      const clang::Stmt* body = nullptr;
      if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(node)) {
        written = walk(loop->getInit(), written);
        parts = {loop->getCond(), loop->getInc()};
        body = loop->getBody();
      } else if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(node)) {
        parts = {loop->getCond()};
        body = loop->getBody();
      } else if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(node)) {
        parts = {loop->getCond()};
        body = loop->getBody();
      } else {
        const auto* choice = llvm::cast<clang::SwitchStmt>(node);
        parts = {choice->getCond()};
        body = choice->getBody();
      }
      Written round = written;
      for (int pass = 0; pass < 2; ++pass) {
        for (const clang::Stmt* part : parts) touch(part, round);
        round = walk(body, round);
        round.insert(written.begin(), written.end());
      }
      return round;
    }
    if (const auto* label = llvm::dyn_cast<clang::LabelStmt>(node)) {
      return walk(label->getSubStmt(), written);
    }
    if (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(node)) {
      return walk(attributed->getSubStmt(), written);
    }
    if (const auto* label = llvm::dyn_cast<clang::SwitchCase>(node)) {
      return walk(label->getSubStmt(), written);
    }
    if (facts_.has_barrier(node)) return {};
    touch(node, written);
    return written;
  }

 private:
  const CallFacts& facts_;

  // Reads, then writes, of one statement.
  void touch(const clang::Stmt* node, Written& written) {
    if (!node) return;
    std::set<const clang::Expr*> targets;
    std::vector<const clang::VarDecl*> writes;
    any_node(node, [&](const clang::Stmt* at) {
      if (const clang::Expr* target = assigned_target(at)) {
        const clang::DeclRefExpr* ref = storage_ref(target);
        if (ref && is_shared(llvm::dyn_cast<clang::VarDecl>(ref->getDecl()))) {
          writes.push_back(llvm::cast<clang::VarDecl>(ref->getDecl()));
          // `a[i] = v` does not read a; `a[i] += v` does.
          const auto* op = llvm::dyn_cast<clang::BinaryOperator>(at);
          if (op && op->getOpcode() == clang::BO_Assign) targets.insert(ref);
        }
      }
      if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(at)) {
        const auto* variable = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
        if (is_shared(variable) && !targets.count(ref) && written.count(variable)) {
          conflicts.insert(variable);
        }
      }
      return false;
    });
    written.insert(writes.begin(), writes.end());
  }
};

}  // namespace

// The edits of block merge: the virtual ids of the naive block a thread belongs to, and each
// shared array with a copy per sub-block indexed by the sub-block.
class BlockMergeWalk::Rules : public EditRules {
 public:
  explicit Rules(const BlockMergeWalk& walk, const clang::Expr* init = nullptr,
                 std::string value = "")
      : walk_(walk), init_(init), value_(std::move(value)) {}

  std::optional<std::string> builtin(Builtin builtin, char component) const override {
    const Dims dim = dim_of(component) & walk_.merged_;
    if (!dim) return std::nullopt;
    const int d = dim == kDimX ? 0 : 1;
    const std::string c(1, component);
    switch (builtin) {
      case Builtin::kThreadIdx:
        return "(threadIdx." + c + " % " + walk_.block_[d] + ")";
      case Builtin::kBlockIdx:
        return "(blockIdx." + c + " * " + std::to_string(walk_.n_[d]) + " + " + walk_.sub_[d] + ")";
      case Builtin::kBlockDim:
        return walk_.block_[d];
      case Builtin::kGridDim:
        return walk_.grid_[d];
    }
    return std::nullopt;
  }
  std::optional<std::string> use(const clang::VarDecl* variable) const override {
    const auto found = walk_.arrays_.find(variable);
    if (found == walk_.arrays_.end() || !found->second) return std::nullopt;
    return variable->getNameAsString() + "[" + walk_.index(found->second) + "]";
  }
  std::optional<std::string> declared(const clang::VarDecl* variable) const override {
    const auto found = walk_.arrays_.find(variable);
    if (found == walk_.arrays_.end() || !found->second) return std::nullopt;
    const Dims dims = found->second;
    const int copies = (dims & kDimX ? walk_.n_[0] : 1) * (dims & kDimY ? walk_.n_[1] : 1);
    return variable->getNameAsString() + "[" + std::to_string(copies) + "]";
  }
  std::optional<std::string> expression(const clang::Expr* expr) const override {
    if (init_ && expr == init_) return value_;
    return std::nullopt;
  }

 private:
  const BlockMergeWalk& walk_;
  const clang::Expr* init_;
  std::string value_;
};

BlockMergeWalk::BlockMergeWalk(KernelText& text, const CallFacts& facts,
                               const clang::FunctionDecl& function, int x, int y)
    : text_(text), facts_(facts), function_(function), n_{x, y} {
  merged_ = (x > 1 ? kDimX : 0) | (y > 1 ? kDimY : 0);
  facts.check(function,
              {Builtin::kThreadIdx, Builtin::kBlockIdx, Builtin::kBlockDim, Builtin::kGridDim},
              merged_);
  const clang::Stmt* body = function.getBody();
  // The merged components of blockIdx the kernel reads.
  Dims read = 0;
  std::vector<const clang::ReturnStmt*> returns;
  std::vector<const clang::Stmt*> barriers, loops;
  any_node(body, [&](const clang::Stmt* at) {
    if (const auto* expr = llvm::dyn_cast<clang::Expr>(at)) {
      const auto component = text.kernel().builtin_component(expr);
      if (component && component->first == Builtin::kBlockIdx) read |= dim_of(component->second);
    }
    if (const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(at)) returns.push_back(ret);
    if (is_loop(at)) loops.push_back(at);
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(at)) {
      if (facts.kind(call) == CallKind::kBarrier) barriers.push_back(call);
    }
    return false;
  });
  if (const Dims unread = merged_ & ~read) {
    throw MergeRefusal{refusal(text.kernel().place(&function), text.knob(),
                               "kernel '" + function.getNameAsString() + "' does not read " +
                                   dims_text("blockIdx", unread) + ": there is nothing to merge")};
  }
  barrier_ = !barriers.empty();
  // A thread that returns early would leave its merged block's barriers short of it: with
  // sub-blocks that do not exist in the naive grid, or that return where a neighbour does not.
  for (const clang::ReturnStmt* ret : returns) {
    const unsigned at = text.span(ret->getSourceRange()).begin;
    for (const clang::Stmt* barrier : barriers) {
      if (text.span(barrier->getSourceRange()).begin > at) {
        refuse(ret, "a return before __syncthreads() (line " +
                        std::to_string(text.kernel().place(barrier).line) +
                        "): every thread of a merged block must reach its barriers");
      }
    }
  }
  for (const clang::Stmt* loop : loops) {
    if (!facts.has_barrier(loop)) continue;
    const Span span = text.extent(loop);
    for (const clang::ReturnStmt* ret : returns) {
      const unsigned at = text.span(ret->getSourceRange()).begin;
      if (at > span.begin && at < span.end) {
        refuse(ret, "a return inside a loop with __syncthreads() (line " +
                        std::to_string(text.kernel().place(loop).line) +
                        "): every thread of a merged block must reach its barriers");
      }
    }
  }
  Phases phases(facts);
  phases.walk(body, {});
  std::map<const clang::VarDecl*, Dims> forced;
  for (const clang::VarDecl* variable : phases.conflicts) forced[variable] = merged_;
  dep_ = std::make_unique<IndexDependence>(
      facts, function, IndexDependence::Source{Builtin::kBlockIdx, merged_, true}, forced);
  const std::set<const clang::VarDecl*> own = declared_in(body);
  for (const clang::VarDecl* variable : own) {
    if (!is_shared(variable)) continue;
    const Dims dims = dep_->dims(variable);
    arrays_[variable] = dims;
    if (dims && variable->getType()->isIncompleteArrayType()) {
      throw MergeRefusal{refusal(text.kernel().place(variable), text.knob(),
                                 "shared array '" + variable->getNameAsString() +
                                     "' depends on the block and its size is not known, so it "
                                     "cannot get a copy per merged block")};
    }
    (dims ? stats_.replicated : stats_.shared).push_back(variable);
  }
  for (const auto& [variable, dims] : forced) {
    if (!own.count(variable) && dep_->dims(variable)) {
      throw MergeRefusal{refusal(text.kernel().place(variable), text.knob(),
                                 "shared variable '" + variable->getNameAsString() +
                                     "' is declared outside the kernel; declare it inside to "
                                     "give each merged block its copy")};
    }
  }
  for (int d = 0; d < 2; ++d) {
    if (!(merged_ & (d ? kDimY : kDimX))) continue;
    const std::string c = d ? "y" : "x";
    block_[d] = text.fresh("gputune_block_" + c);
    sub_[d] = text.fresh("gputune_sub_" + c);
    grid_[d] = text.fresh("gputune_grid_" + c);
  }
  if (barrier_) active_ = text.fresh("gputune_active");
}

BlockMergeWalk::~BlockMergeWalk() = default;

void BlockMergeWalk::refuse(const clang::Stmt* at, const std::string& what) const {
  throw MergeRefusal{refusal(text_.kernel().place(at), text_.knob(), what)};
}

std::string BlockMergeWalk::parameters(bool after_others) const {
  std::string out;
  for (int d = 0; d < 2; ++d) {
    if (grid_[d].empty()) continue;
    out += (after_others || !out.empty() ? ", " : "") + std::string("unsigned int ") + grid_[d];
  }
  return out;
}

std::string BlockMergeWalk::index(Dims dims) const {
  if (dims == (kDimX | kDimY)) {
    return sub_[1] + " * " + std::to_string(n_[0]) + " + " + sub_[0];
  }
  return sub_[dims & kDimX ? 0 : 1];
}

std::string BlockMergeWalk::prologue(const std::string& indent) const {
  std::string out, outside;
  for (int d = 0; d < 2; ++d) {
    if (block_[d].empty()) continue;
    const std::string c = d ? "y" : "x";
    out += "const unsigned int " + block_[d] + " = blockDim." + c + " / " + std::to_string(n_[d]) +
           ";\n" + indent;
    out +=
        "const unsigned int " + sub_[d] + " = threadIdx." + c + " / " + block_[d] + ";\n" + indent;
    outside += (outside.empty() ? "" : " || ") + std::string("blockIdx.") + c + " * " +
               std::to_string(n_[d]) + " + " + sub_[d] + " >= " + grid_[d];
  }
  if (barrier_) return out + "const bool " + active_ + " = !(" + outside + ");";
  return out + "if (" + outside + ") return;";
}

// Where a statement only fills shared arrays that the sub-blocks share along some merged
// dimensions, the condition under which it runs: in the first sub-block along those.
std::optional<std::string> BlockMergeWalk::fill_guard(const clang::Stmt* node) const {
  if (llvm::isa<clang::DeclStmt>(node) || facts_.has_barrier(node) ||
      contains<clang::ReturnStmt>(node) || contains<clang::BreakStmt>(node) ||
      contains<clang::ContinueStmt>(node)) {
    return std::nullopt;
  }
  const std::set<const clang::VarDecl*> own = declared_in(node);
  Dims kept = 0;  // the dimensions some written array has a copy along
  bool fills = false;
  const auto escapes = [&](const clang::Stmt* at) {
    if (const clang::Expr* target = assigned_target(at)) {
      const clang::VarDecl* root = storage_root(target);
      const auto array = arrays_.find(root);
      if (array != arrays_.end()) {
        kept |= array->second;
        fills = true;
      } else if (!root || !own.count(root)) {
        return true;
      }
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(at)) {
      if (facts_.kind(call) == CallKind::kEffect) return true;
    }
    return false;
  };
  if (any_node(node, escapes)) return std::nullopt;
  const Dims once = merged_ & ~kept;
  if (!fills || !once) return std::nullopt;
  std::string guard;
  for (int d = 0; d < 2; ++d) {
    if (once & (d ? kDimY : kDimX)) guard += (guard.empty() ? "" : " && ") + sub_[d] + " == 0";
  }
  if (dep_->dims(node)) guard += " && " + active_;
  return guard;
}

bool BlockMergeWalk::holds_fill(const clang::Stmt* node) const {
  for (const clang::Stmt* child : node->children()) {
    if (child && (fill_guard(child) || holds_fill(child))) return true;
  }
  return false;
}

// Whether a statement assigns a variable declared before it that does not depend on the block:
// all sub-blocks need its value, so the statement cannot be skipped as a whole.
bool BlockMergeWalk::writes_outer_independent(const clang::Stmt* node) const {
  const std::set<const clang::VarDecl*> own = declared_in(node);
  const auto writes_outer = [&](const clang::Stmt* at) {
    if (const clang::Expr* target = assigned_target(at)) {
      const clang::VarDecl* root = storage_root(target);
      if (root && !is_shared(root) && !own.count(root) && !dep_->dims(root)) return true;
    }
    return false;
  };
  return any_node(node, writes_outer);
}

std::string BlockMergeWalk::body() {
  return compound(llvm::cast<clang::CompoundStmt>(function_.getBody()), true);
}

std::string BlockMergeWalk::compound(const clang::CompoundStmt* node, bool top) {
  const Span whole = text_.span(node->getSourceRange());
  std::string indent = "  ";
  if (!node->body_empty()) indent = text_.indent_at(text_.extent(node->body_front()).begin);
  std::string out = "{";
  if (top) out += "\n" + indent + prologue(indent);
  if (top && !barrier_) {
    // Sub-blocks outside the naive grid have left: the rest runs as written, rewritten.
    return out + text_.render({whole.begin + 1, whole.end}, text_.edits(node, Rules(*this)));
  }
  unsigned at = whole.begin + 1;
  for (const clang::Stmt* child : node->body()) {
    const Span extent = text_.extent(child);
    out += text_.text({at, extent.begin});
    const auto* branch = llvm::dyn_cast<clang::IfStmt>(child);
    if (top && branch && !branch->getElse() && !branch->getInit() &&
        llvm::isa<clang::ReturnStmt>(branch->getThen()) && dep_->dims(branch->getCond())) {
      // Leaving the kernel after its last barrier: a sub-block outside the naive grid leaves too.
      const Span cond = text_.span(branch->getCond()->getSourceRange());
      out += text_.render({extent.begin, cond.begin}, {}) + "!" + active_ + " || (" +
             text_.render_expr(branch->getCond(), Rules(*this)) + ")" +
             text_.render({cond.end, extent.end}, text_.edits(branch->getThen(), Rules(*this)));
    } else {
      out += statement(child, text_.indent_at(extent.begin));
    }
    at = extent.end;
  }
  return out + text_.text({at, whole.end});
}

std::string BlockMergeWalk::statement(const clang::Stmt* node, const std::string& indent) {
  if (is_block_level(node)) return text_.text(text_.extent(node));
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(node)) {
    return compound(block, false);
  }
  const clang::Stmt* sub = nullptr;
  if (const auto* label = llvm::dyn_cast<clang::LabelStmt>(node)) sub = label->getSubStmt();
  if (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(node)) {
    sub = attributed->getSubStmt();
  }
  if (const auto* label = llvm::dyn_cast<clang::SwitchCase>(node)) sub = label->getSubStmt();
  if (sub) {
    const unsigned begin = text_.extent(node).begin, inner = text_.extent(sub).begin;
    return (begin < inner ? text_.text({begin, inner}) : "") + statement(sub, indent);
  }
  if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(node)) {
    return declaration(decls, indent);
  }
  const Dims control = dep_->control(node);
  if (facts_.has_barrier(node)) {
    if (control) {
      refuse(facts_.first_barrier(node),
             "__syncthreads() " +
                 std::string(llvm::isa<clang::IfStmt>(node)
                                 ? "under a condition that depends on "
                                 : "in a loop whose iterations depend on ") +
                 dims_text("blockIdx", control) + " (line " +
                 std::to_string(text_.kernel().place(node).line) +
                 "): the sub-blocks of a merged block would not all reach it");
    }
    if (llvm::isa<clang::IfStmt, clang::SwitchStmt>(node) || is_loop(node)) {
      return inside(node, indent);
    }
    if (dep_->dims(node)) {
      refuse(facts_.first_barrier(node), "__syncthreads() in a statement that depends on " +
                                             dims_text("blockIdx", dep_->dims(node)));
    }
    return text_.render(node, Rules(*this));
  }
  if (const auto guard = fill_guard(node)) {
    const std::string text = text_.render(node, Rules(*this));
    return "if (" + *guard + ") " + (llvm::isa<clang::IfStmt>(node) ? "{ " + text + " }" : text);
  }
  const Dims dims = dep_->replication(node);
  const bool control_statement = llvm::isa<clang::IfStmt, clang::SwitchStmt>(node) || is_loop(node);
  if (control_statement && !control &&
      (holds_fill(node) || (dims && writes_outer_independent(node)))) {
    return inside(node, indent);
  }
  const std::string text = text_.render(node, Rules(*this));
  if (!dims) return text;
  return "if (" + active_ + ") " + (llvm::isa<clang::IfStmt>(node) ? "{ " + text + " }" : text);
}

// A control statement that every sub-block runs, its bodies walked.
std::string BlockMergeWalk::inside(const clang::Stmt* node, const std::string& indent) {
  const auto walked = [&](const clang::Stmt* body, const std::string& header) {
    const std::string inner = text_.body_indent(body, indent);
    return text_.attach(header, body, statement(body, inner), inner, indent);
  };
  const auto header = [&](const clang::Stmt* body, std::vector<const clang::Stmt*> parts) {
    std::vector<Edit> edits;
    for (const clang::Stmt* part : parts) {
      if (!part) continue;
      const std::vector<Edit> more = text_.edits(part, Rules(*this));
      edits.insert(edits.end(), more.begin(), more.end());
    }
    return text_.render({text_.extent(node).begin, text_.extent(body).begin}, edits);
  };
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(node)) {
    std::string out = walked(branch->getThen(),
                             header(branch->getThen(), {branch->getInit(), branch->getCond()}));
    if (const clang::Stmt* otherwise = branch->getElse()) {
      const unsigned then_end = text_.extent(branch->getThen()).end;
      out += walked(otherwise, text_.text({then_end, text_.extent(otherwise).begin}));
    }
    return out;
  }
  if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(node)) {
    return walked(loop->getBody(),
                  header(loop->getBody(), {loop->getInit(), loop->getCond(), loop->getInc()}));
  }
  if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(node)) {
    return walked(loop->getBody(), header(loop->getBody(), {loop->getCond()}));
  }
  if (const auto* choice = llvm::dyn_cast<clang::SwitchStmt>(node)) {
    return walked(choice->getBody(),
                  header(choice->getBody(), {choice->getInit(), choice->getCond()}));
  }
  const auto* loop = llvm::cast<clang::DoStmt>(node);
  const Span extent = text_.extent(node), inner = text_.extent(loop->getBody());
  return walked(loop->getBody(), text_.text({extent.begin, inner.begin})) +
         text_.render({inner.end, extent.end}, text_.edits(loop->getCond(), Rules(*this)));
}

std::string BlockMergeWalk::declaration(const clang::DeclStmt* node, const std::string& indent) {
  const Dims dims = dep_->dims(node);
  bool shared = false;
  for (const clang::Decl* decl : node->decls()) {
    shared = shared || is_shared(llvm::dyn_cast<clang::VarDecl>(decl));
  }
  const auto nothing = [](const clang::Expr*) { return false; };
  // An initialiser that reads memory must not run in a sub-block outside the naive grid.
  const auto guarded = [&](const clang::VarDecl* variable) {
    const clang::Expr* init = variable->getInit();
    return init && dep_->dims(variable) && !dep_->pure(init, nullptr, nothing);
  };
  const auto value = [&](const clang::VarDecl* variable) {
    const clang::Expr* init = variable->getInit();
    const std::string text = text_.render_expr(init, Rules(*this));
    if (!guarded(variable)) return text;
    const std::optional<std::string> zero = text_.zero(variable->getType());
    if (!zero || variable->getInitStyle() != clang::VarDecl::CInit ||
        llvm::isa<clang::InitListExpr>(init)) {
      refuse(node, "a declaration that depends on " + dims_text("blockIdx", dims) +
                       " needs the form `T v = value;` to be skipped outside the naive grid");
    }
    return active_ + " ? (" + text + ") : " + *zero;
  };
  if (shared || !dims) return text_.render(node, Rules(*this));
  if (node->isSingleDecl()) {
    const auto* variable = llvm::dyn_cast<clang::VarDecl>(node->getSingleDecl());
    if (!variable || !guarded(variable)) return text_.render(node, Rules(*this));
    return text_.render(node, Rules(*this, variable->getInit(), value(variable)));
  }
  std::string out;
  for (const clang::Decl* decl : node->decls()) {
    const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl);
    if (!variable) refuse(node, "a declaration of types beside variables that depend on the block");
    if (variable->getInit() && variable->getInitStyle() != clang::VarDecl::CInit) {
      refuse(node,
             "declare each variable that depends on " + dims_text("blockIdx", dims) + " with `=`");
    }
    out += (out.empty() ? "" : "\n" + indent) +
           text_.declaration(variable->getType(), variable->getNameAsString()) +
           (variable->getInit() ? " = " + value(variable) : "") + ";";
  }
  return out;
}

}  // namespace gputune::engine
