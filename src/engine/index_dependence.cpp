#include "engine/index_dependence.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace gputune::engine {
namespace {

bool reference_to_non_const(clang::QualType type) {
  return type->isReferenceType() && !type.getNonReferenceType().isConstQualified();
}

// Whether a use of a variable lets its address out (`&v`, a reference bound to it, an array
// passed as a pointer), after which any write may reach it: then every copy needs its own.
bool escapes(clang::ASTContext& context, const clang::DeclRefExpr* ref) {
  const clang::Stmt* child = ref;
  while (true) {
    const auto parents = context.getParents(*child);
    if (parents.empty()) return true;
    const clang::Stmt* parent = parents[0].get<clang::Stmt>();
    if (!parent) return true;  // a reference variable bound to it
    if (llvm::isa<clang::ParenExpr>(parent)) {
      child = parent;
    } else if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(parent)) {
      if (cast->getCastKind() == clang::CK_NoOp) {
        child = parent;
      } else if (cast->getCastKind() == clang::CK_ArrayToPointerDecay) {
        const auto above = context.getParents(*parent);
        const auto* subscript = above.empty() ? nullptr : above[0].get<clang::ArraySubscriptExpr>();
        if (!subscript || subscript->getBase() != parent) return true;
        child = subscript;
      } else {
        return false;  // a load (LValueToRValue) or another conversion of the value
      }
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(parent)) {
      if (member->isArrow()) return false;
      child = parent;
    } else if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(parent)) {
      return unary->getOpcode() == clang::UO_AddrOf;
    } else if (llvm::isa<clang::BinaryOperator, clang::UnaryExprOrTypeTraitExpr>(parent)) {
      return false;  // assigned to, or a comma's operand, or sizeof
    } else if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(parent)) {
      return !construct->getConstructor()->isCopyOrMoveConstructor();
    } else if (const auto* call = llvm::dyn_cast<clang::CallExpr>(parent)) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      if (!callee) return true;
      const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
      if (op && op->isAssignmentOp() && call->getNumArgs() > 0 && call->getArg(0) == child) {
        return false;
      }
      // A method on the variable, or an argument bound to a reference the callee may write.
      if (llvm::isa<clang::CXXMemberCallExpr>(call)) return true;
      const unsigned offset =
          llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(callee)
              ? 1
              : 0;
      for (unsigned i = 0; i < call->getNumArgs(); ++i) {
        if (call->getArg(i) != child) continue;
        if (i < offset) return true;
        const unsigned param = i - offset;
        return param >= callee->getNumParams() ||
               reference_to_non_const(callee->getParamDecl(param)->getType());
      }
      return true;
    } else {
      return true;
    }
  }
}

class EscapeFinder : public clang::RecursiveASTVisitor<EscapeFinder> {
 public:
  EscapeFinder(clang::ASTContext& context, const IndexDependence& dependence)
      : context_(context), dependence_(dependence) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const auto* variable = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (variable && dependence_.is_private(variable) && escapes(context_, ref)) {
      found.insert(variable);
    }
    return true;
  }
  std::set<const clang::VarDecl*> found;

 private:
  clang::ASTContext& context_;
  const IndexDependence& dependence_;
};

}  // namespace

std::string dims_text(const char* builtin, Dims dims) {
  const std::string name = builtin;
  if (dims == (kDimX | kDimY)) return name + ".x and " + name + ".y";
  return name + (dims & kDimX ? ".x" : ".y");
}

// One pass over the kernel in source order that adds to each variable the dimensions of what
// is assigned to it and of the dependent control it is assigned under; repeated to a fixpoint.
class DependenceWalk {
 public:
  explicit DependenceWalk(IndexDependence& dependence) : d_(dependence) {}

  bool run(const clang::Stmt* body) {
    statement(body);
    return changed_;
  }

 private:
  IndexDependence& d_;
  std::vector<Dims> control_;  // the conditions around the current point, innermost last
  std::map<const clang::VarDecl*, std::pair<size_t, int>> declared_;  // depth, sequence
  struct Target {
    const clang::Stmt* statement;
    size_t depth;  // control_.size() inside it
    bool loop;
  };
  std::vector<Target> targets_;
  std::vector<std::pair<int, Dims>> returns_;  // sequence, dimensions of dependent returns
  int sequence_ = 0;
  bool changed_ = false;

  Dims dims(const clang::Stmt* node) const { return node ? d_.compute(node) : 0; }

  Dims control_from(size_t depth) const {
    Dims dims = 0;
    for (size_t i = depth; i < control_.size(); ++i) dims |= control_[i];
    return dims;
  }

  // The dependent control between a variable's declaration and here.
  Dims control_since(const clang::VarDecl* variable) const {
    const auto found = declared_.find(variable);
    const size_t depth = found == declared_.end() ? 0 : found->second.first;
    const int sequence = found == declared_.end() ? -1 : found->second.second;
    Dims dims = control_from(depth);
    for (const auto& [at, returned] : returns_) {
      if (at > sequence) dims |= returned;
    }
    return dims;
  }

  void add(const clang::VarDecl* variable, Dims dims) {
    if (!variable || !d_.is_private(variable)) return;
    Dims& known = d_.variables_[variable];
    if ((known | dims) != known) {
      known |= dims;
      changed_ = true;
    }
  }

  void assigned(const clang::Expr* target, Dims value) {
    const clang::VarDecl* root = storage_root(target);
    if (root) add(root, value | dims(target) | control_since(root));
  }

  void exit(const Target& target, Dims dims) {
    Dims& known = d_.exits_[target.statement];
    if ((known | dims) != known) {
      known |= dims;
      changed_ = true;
    }
  }

  void expression(const clang::Stmt* node) {
    if (!node) return;
    if (const auto* op = llvm::dyn_cast<clang::BinaryOperator>(node)) {
      if (op->isAssignmentOp()) {
        assigned(op->getLHS(), dims(op->getRHS()));
      } else if (op->isLogicalOp()) {
        expression(op->getLHS());
        control_.push_back(dims(op->getLHS()));
        expression(op->getRHS());
        control_.pop_back();
        return;
      }
    } else if (const auto* op = llvm::dyn_cast<clang::UnaryOperator>(node)) {
      if (op->isIncrementDecrementOp()) assigned(op->getSubExpr(), 0);
    } else if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(node)) {
      if ((op->isAssignmentOp() || op->getOperator() == clang::OO_PlusPlus ||
           op->getOperator() == clang::OO_MinusMinus) &&
          op->getNumArgs() > 0) {
        assigned(op->getArg(0), dims(op));
      }
    } else if (const auto* conditional = llvm::dyn_cast<clang::ConditionalOperator>(node)) {
      expression(conditional->getCond());
      control_.push_back(dims(conditional->getCond()));
      expression(conditional->getTrueExpr());
      expression(conditional->getFalseExpr());
      control_.pop_back();
      return;
    }
    for (const clang::Stmt* child : node->children()) expression(child);
  }

  void declare(const clang::VarDecl* variable) {
    declared_[variable] = {control_.size(), sequence_};
    if (const clang::Expr* init = variable->getInit()) {
      expression(init);
      add(variable, dims(init));
    }
  }

  void loop(const clang::Stmt* statement, Dims control, const clang::Stmt* body,
            std::vector<const clang::Stmt*> exprs) {
    control_.push_back(control | d_.exits_[statement]);
    targets_.push_back({statement, control_.size(), true});
    for (const clang::Stmt* expr : exprs) expression(expr);
    this->statement(body);
    targets_.pop_back();
    control_.pop_back();
  }

  void statement(const clang::Stmt* node) {
    if (!node || is_block_level(node)) return;
    ++sequence_;
    if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(node)) {
      for (const clang::Decl* decl : decls->decls()) {
        if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl)) declare(variable);
      }
    } else if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(node)) {
      statement(branch->getInit());
      if (const clang::VarDecl* variable = branch->getConditionVariable()) declare(variable);
      expression(branch->getCond());
      control_.push_back(dims(branch->getCond()));
      statement(branch->getThen());
      statement(branch->getElse());
      control_.pop_back();
    } else if (const auto* loop_for = llvm::dyn_cast<clang::ForStmt>(node)) {
      statement(loop_for->getInit());
      if (const clang::VarDecl* variable = loop_for->getConditionVariable()) declare(variable);
      loop(node, dims(loop_for->getCond()) | dims(loop_for->getInc()), loop_for->getBody(),
           {loop_for->getCond(), loop_for->getInc()});
    } else if (const auto* loop_while = llvm::dyn_cast<clang::WhileStmt>(node)) {
      if (const clang::VarDecl* variable = loop_while->getConditionVariable()) declare(variable);
      loop(node, dims(loop_while->getCond()), loop_while->getBody(), {loop_while->getCond()});
    } else if (const auto* loop_do = llvm::dyn_cast<clang::DoStmt>(node)) {
      loop(node, dims(loop_do->getCond()), loop_do->getBody(), {loop_do->getCond()});
    } else if (const auto* choice = llvm::dyn_cast<clang::SwitchStmt>(node)) {
      statement(choice->getInit());
      if (const clang::VarDecl* variable = choice->getConditionVariable()) declare(variable);
      expression(choice->getCond());
      control_.push_back(dims(choice->getCond()) | d_.exits_[node]);
      targets_.push_back({node, control_.size(), false});
      statement(choice->getBody());
      targets_.pop_back();
      control_.pop_back();
    } else if (llvm::isa<clang::BreakStmt>(node)) {
      if (!targets_.empty()) exit(targets_.back(), control_from(targets_.back().depth));
    } else if (llvm::isa<clang::ContinueStmt>(node)) {
      for (auto target = targets_.rbegin(); target != targets_.rend(); ++target) {
        if (target->loop) {
          exit(*target, control_from(target->depth));
          break;
        }
      }
    } else if (const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(node)) {
      expression(ret->getRetValue());
      Dims dims = control_from(0);
      for (const auto& [at, returned] : returns_) dims |= returned;
      if (dims) {
        returns_.push_back({sequence_, dims});
        for (const Target& target : targets_) exit(target, dims);
      }
    } else if (const auto* expr = llvm::dyn_cast<clang::Expr>(node)) {
      expression(expr);
    } else {
      for (const clang::Stmt* child : node->children()) statement(child);
    }
  }
};

IndexDependence::IndexDependence(const CallFacts& facts, const clang::FunctionDecl& function,
                                 Source source, const std::map<const clang::VarDecl*, Dims>& forced)
    : facts_(facts), kernel_(facts.kernel()), source_(source), variables_(forced) {
  EscapeFinder escapes(kernel_.context(), *this);
  escapes.TraverseStmt(function.getBody());
  for (const clang::VarDecl* variable : escapes.found) variables_[variable] |= source_.merged;
  while (DependenceWalk(*this).run(function.getBody())) {
  }
}

bool IndexDependence::is_private(const clang::VarDecl* variable) const {
  if (variable->hasLocalStorage()) return !variable->getType()->isReferenceType();
  return source_.shared_is_private && variable->hasAttr<clang::CUDASharedAttr>();
}

bool IndexDependence::in_memory(const clang::Expr* glvalue) const {
  if (kernel_.builtin_component(glvalue)) return false;
  const clang::VarDecl* root = storage_root(glvalue);
  return !root || !is_private(root);
}

bool IndexDependence::reads_memory(const clang::Stmt* node) const {
  if (!node) return false;
  if (const clang::Expr* read = read_glvalue(node); read && in_memory(read)) return true;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(node)) {
    if (facts_.kind(call) != CallKind::kPure) return true;
  }
  for (const clang::Stmt* child : node->children()) {
    if (reads_memory(child)) return true;
  }
  return false;
}

bool IndexDependence::pure(const clang::Stmt* node, const clang::Stmt* top,
                           const std::function<bool(const clang::Expr*)>& skip) const {
  if (!node) return true;
  if (const auto* expr = llvm::dyn_cast<clang::Expr>(node); expr && skip(expr)) return true;
  if (node != top && assigned_target(node)) return false;
  if (const clang::Expr* read = read_glvalue(node); read && in_memory(read)) return false;
  // An integer division by a value that depends on the merged index may be by zero in a copy
  // the naive kernel would not run, which is undefined; a divisor the copies share is the one
  // the running copies divide by too.
  if (const auto* op = llvm::dyn_cast<clang::BinaryOperator>(node)) {
    const clang::BinaryOperatorKind kind = op->getOpcode();
    if ((kind == clang::BO_Div || kind == clang::BO_Rem || kind == clang::BO_DivAssign ||
         kind == clang::BO_RemAssign) &&
        op->getType()->isIntegerType() && dims(op->getRHS())) {
      return false;
    }
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(node)) {
    if (facts_.kind(call) != CallKind::kPure) return false;
  }
  for (const clang::Stmt* child : node->children()) {
    if (!pure(child, top, skip)) return false;
  }
  return true;
}

Dims IndexDependence::dims(const clang::VarDecl* variable) const {
  const auto found = variables_.find(variable);
  return found == variables_.end() ? 0 : found->second;
}

Dims IndexDependence::compute(const clang::Stmt* node) const {
  Dims dims = 0;
  if (is_block_level(node)) return 0;
  if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(node)) {
    const auto component = kernel_.builtin_component(member);
    if (component && component->first == source_.builtin) {
      return dim_of(component->second) & source_.merged;
    }
  } else if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(node)) {
    if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(ref->getDecl())) {
      // A reference stands for what it was bound to.
      if (variable->getType()->isReferenceType() && variable->getInit() &&
          variable->hasLocalStorage()) {
        return compute(variable->getInit());
      }
      return this->dims(variable);
    }
  } else if (const auto* call = llvm::dyn_cast<clang::CallExpr>(node)) {
    if (facts_.kind(call) == CallKind::kEffect) dims = source_.merged;
  } else if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(node)) {
    for (const clang::Decl* decl : decls->decls()) {
      if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl)) dims |= this->dims(variable);
    }
  }
  for (const clang::Stmt* child : node->children()) {
    if (child) dims |= compute(child);
  }
  return dims;
}

Dims IndexDependence::dims(const clang::Stmt* node) const {
  if (!node) return 0;
  const auto found = memo_.find(node);
  if (found != memo_.end()) return found->second;
  const Dims dims = compute(node);
  memo_[node] = dims;
  return dims;
}

Dims IndexDependence::replication(const clang::Stmt* node) const {
  const auto needs_every_copy = [&](const clang::Stmt* at) {
    if (const clang::Expr* target = assigned_target(at)) {
      const clang::VarDecl* root = storage_root(target);
      const auto* op = llvm::dyn_cast<clang::BinaryOperator>(at);
      const auto* call = llvm::dyn_cast<clang::CXXOperatorCallExpr>(at);
      const bool plain = (op && op->getOpcode() == clang::BO_Assign) ||
                         (call && call->getOperator() == clang::OO_Equal);
      if (!plain && (!root || !is_private(root))) return true;
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(at)) {
      if (facts_.kind(call) == CallKind::kEffect) return true;
    }
    return false;
  };
  if (any_node(node, needs_every_copy)) return source_.merged;
  return dims(node);
}

Dims IndexDependence::control(const clang::Stmt* statement) const {
  const auto exits = [&] {
    const auto found = exits_.find(statement);
    return found == exits_.end() ? 0 : found->second;
  };
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(statement)) {
    return dims(branch->getInit()) | dims(branch->getCond());
  }
  if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(statement)) {
    return dims(loop->getInit()) | dims(loop->getCond()) | dims(loop->getInc()) | exits();
  }
  if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(statement)) {
    return dims(loop->getCond()) | exits();
  }
  if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(statement)) {
    return dims(loop->getCond()) | exits();
  }
  if (const auto* choice = llvm::dyn_cast<clang::SwitchStmt>(statement)) {
    return dims(choice->getInit()) | dims(choice->getCond()) | exits();
  }
  return 0;
}

}  // namespace gputune::engine
