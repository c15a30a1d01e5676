// The method's index analysis: a walk over each kernel in the order its statements run, which
// keeps the affine form of every integer local at each point (its reaching definition), finds
// the global accesses and records each one's indices, loops and guard.
#include "engine/access_analysis.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>

#include <algorithm>
#include <set>

#include "engine/call_facts.h"

namespace gputune::engine {
namespace {

using Forms = std::map<const clang::VarDecl*, std::optional<Affine>>;

// Where a local pointer points: an offset into a pointer parameter, or somewhere else.
struct Pointer {
  const clang::VarDecl* parameter = nullptr;  // null: unknown or not global
  std::optional<Affine> offset;
  bool global = true;  // false: it points into a __shared__ or local array
};

bool is_return_only(const clang::Stmt* statement) {
  if (const auto* block = llvm::dyn_cast_or_null<clang::CompoundStmt>(statement)) {
    return block->size() == 1 && is_return_only(block->body_front());
  }
  return statement && llvm::isa<clang::ReturnStmt>(statement);
}

clang::BinaryOperatorKind negate(clang::BinaryOperatorKind op) {
  switch (op) {
    case clang::BO_LT:
      return clang::BO_GE;
    case clang::BO_LE:
      return clang::BO_GT;
    case clang::BO_GT:
      return clang::BO_LE;
    case clang::BO_GE:
      return clang::BO_LT;
    case clang::BO_EQ:
      return clang::BO_NE;
    default:
      return clang::BO_EQ;
  }
}

class AccessWalk {
 public:
  AccessWalk(const ParsedKernel& kernel, const clang::FunctionDecl* function)
      : kernel_(kernel), function_(function) {
    any_node(function->getBody(), [this](const clang::Stmt* node) {
      if (const clang::Expr* target = assigned_target(node)) {
        if (const clang::VarDecl* root = storage_root(target)) assigned_.insert(root);
      }
      if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(node)) {
        if (unary->getOpcode() == clang::UO_AddrOf) {
          if (const clang::VarDecl* root = storage_root(unary->getSubExpr())) {
            escaped_.insert(root);
          }
        }
      }
      return false;
    });
  }

  std::vector<Access> run() {
    walk(function_->getBody(), 0);
    return std::move(accesses_);
  }

 private:
  const ParsedKernel& kernel_;
  const clang::FunctionDecl* function_;
  std::set<const clang::VarDecl*> assigned_, escaped_;
  Forms forms_;
  std::map<const clang::VarDecl*, Pointer> pointers_;
  std::vector<const clang::Stmt*> loops_;
  std::vector<LoopFacts> loop_facts_;
  // The conditions around the statement walked (nothing: one that is not affine).
  std::vector<std::optional<std::vector<Comparison>>> guards_;
  const clang::Stmt* top_ = nullptr;
  std::vector<Access> accesses_;

  std::optional<Affine> affine(const clang::Expr* expression) const {
    if (!expression) return std::nullopt;
    expression = expression->IgnoreParens();
    if (!expression->getType()->isIntegralOrEnumerationType()) return std::nullopt;
    if (!expression->isValueDependent() && !expression->isTypeDependent()) {
      clang::Expr::EvalResult result;
      if (expression->EvaluateAsInt(result, kernel_.context())) {
        return Affine::constant(result.Val.getInt().getExtValue());
      }
    }
    if (const auto* cast = llvm::dyn_cast<clang::CastExpr>(expression)) {
      if (cast->getSubExpr()->getType()->isIntegralOrEnumerationType()) {
        return affine(cast->getSubExpr());
      }
      return std::nullopt;
    }
    if (const auto component = kernel_.builtin_component(expression)) {
      const char* names[] = {"threadIdx.", "blockIdx.", "blockDim.", "gridDim."};
      const std::string name =
          names[static_cast<int>(component->first)] + std::string(1, component->second);
      if (component->first == Builtin::kThreadIdx || component->first == Builtin::kBlockIdx) {
        return Affine::term(name);
      }
      return Affine::symbol(name);
    }
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expression)) {
      const auto inner = affine(unary->getSubExpr());
      if (!inner) return std::nullopt;
      if (unary->getOpcode() == clang::UO_Plus) return inner;
      if (unary->getOpcode() == clang::UO_Minus) return Affine() - *inner;
      return std::nullopt;
    }
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expression)) {
      const auto left = affine(binary->getLHS());
      const auto right = affine(binary->getRHS());
      if (!left || !right) return std::nullopt;
      switch (binary->getOpcode()) {
        case clang::BO_Add:
          return *left + *right;
        case clang::BO_Sub:
          return *left - *right;
        case clang::BO_Mul:
          return *left * *right;
        default:
          return std::nullopt;
      }
    }
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expression)) {
      const auto* variable = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
      if (!variable || escaped_.count(variable) || variable->getType().isVolatileQualified()) {
        return std::nullopt;
      }
      if (llvm::isa<clang::ParmVarDecl>(variable)) {
        if (assigned_.count(variable)) return std::nullopt;
        return Affine::symbol(variable->getNameAsString());
      }
      const auto found = forms_.find(variable);
      if (found != forms_.end()) return found->second;
    }
    return std::nullopt;
  }

  // The comparisons that hold where `condition` is `truth`; nothing where it is not a
  // conjunction of comparisons of affine forms.
  std::optional<std::vector<Comparison>> comparisons(const clang::Expr* condition,
                                                     bool truth) const {
    condition = condition->IgnoreParenImpCasts();
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(condition)) {
      if (unary->getOpcode() == clang::UO_LNot) return comparisons(unary->getSubExpr(), !truth);
      return std::nullopt;
    }
    const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(condition);
    if (!binary) return std::nullopt;
    const clang::BinaryOperatorKind op = binary->getOpcode();
    if ((op == clang::BO_LAnd && truth) || (op == clang::BO_LOr && !truth)) {
      auto left = comparisons(binary->getLHS(), truth);
      auto right = comparisons(binary->getRHS(), truth);
      if (!left || !right) return std::nullopt;
      left->insert(left->end(), right->begin(), right->end());
      return left;
    }
    if (!binary->isComparisonOp()) return std::nullopt;
    const auto left = affine(binary->getLHS());
    const auto right = affine(binary->getRHS());
    if (!left || !right) return std::nullopt;
    return std::vector<Comparison>{{*left, truth ? op : negate(op), *right}};
  }

  void set_form(const clang::VarDecl* variable, const clang::Expr* value) {
    if (variable->getType()->isIntegralOrEnumerationType()) {
      forms_[variable] = affine(value);
    } else if (variable->getType()->isPointerType()) {
      pointers_[variable] = pointer(value);
    }
  }

  Pointer pointer(const clang::Expr* value) const {
    Pointer out;
    if (!value) return out;
    value = value->IgnoreParenImpCasts();
    std::optional<Affine> offset = Affine();
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(value);
        unary && unary->getOpcode() == clang::UO_AddrOf) {
      if (const auto* subscript =
              llvm::dyn_cast<clang::ArraySubscriptExpr>(unary->getSubExpr()->IgnoreParens())) {
        value = subscript->getBase()->IgnoreParenImpCasts();
        offset = affine(subscript->getIdx());
      }
    } else if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(value);
               binary && binary->getOpcode() == clang::BO_Add) {
      const bool left = binary->getLHS()->getType()->isPointerType();
      value = (left ? binary->getLHS() : binary->getRHS())->IgnoreParenImpCasts();
      offset = affine(left ? binary->getRHS() : binary->getLHS());
    }
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(value);
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (!variable) return out;
    if (variable->getType()->isArrayType() || variable->hasAttr<clang::CUDASharedAttr>()) {
      out.global = false;
      return out;
    }
    if (llvm::isa<clang::ParmVarDecl>(variable) && !assigned_.count(variable)) {
      out.parameter = variable;
      out.offset = offset;
    } else if (const auto found = pointers_.find(variable); found != pointers_.end()) {
      out = found->second;
      if (out.offset && offset) {
        out.offset = *out.offset + *offset;
      } else {
        out.offset.reset();
      }
    }
    return out;
  }

  // The access `expression` is, if it is one: its pointer, and its indices outermost first.
  bool describe(const clang::Expr* expression, Access* access) const {
    std::vector<const clang::Expr*> indices;
    const clang::Expr* base = nullptr;
    if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(expression)) {
      if (subscript->getType()->isArrayType()) return false;  // an inner subscript
      const clang::Expr* current = subscript;
      while (const auto* s = llvm::dyn_cast<clang::ArraySubscriptExpr>(current)) {
        indices.insert(indices.begin(), s->getIdx());
        current = s->getBase()->IgnoreParenImpCasts();
        if (!s->getBase()->getType()->isPointerType()) break;
        if (!llvm::isa<clang::ArraySubscriptExpr>(current)) break;
        if (!current->getType()->isArrayType()) break;
      }
      base = current;
    } else if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expression);
               unary && unary->getOpcode() == clang::UO_Deref) {
      base = unary->getSubExpr();
      indices.push_back(nullptr);
    } else {
      return false;
    }
    const Pointer where = pointer(base);
    if (!where.global) return false;
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(base->IgnoreParenImpCasts());
    access->array_variable =
        where.parameter
            ? where.parameter
            : (reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr);
    access->array = access->array_variable ? access->array_variable->getNameAsString()
                                           : kernel_.text(base->IgnoreParenImpCasts());
    for (size_t i = 0; i < indices.size(); ++i) {
      std::optional<Affine> index = indices[i] ? affine(indices[i]) : Affine();
      if (i + 1 == indices.size()) {
        if (!where.parameter || !where.offset) {
          index.reset();
        } else if (index) {
          index = *index + *where.offset;
        }
      }
      access->indices.push_back(index);
    }
    return true;
  }

  // The accesses an expression makes, in the order of its text.
  void collect(const clang::Stmt* expression) {
    if (!expression) return;
    std::map<const clang::Expr*, bool> targets;  // assigned -> also read (`+=`, `++`)
    any_node(expression, [&](const clang::Stmt* node) {
      if (const clang::Expr* target = assigned_target(node)) {
        const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(node);
        const auto* call = llvm::dyn_cast<clang::CXXOperatorCallExpr>(node);
        const bool plain = (binary && binary->getOpcode() == clang::BO_Assign) ||
                           (call && call->getOperator() == clang::OO_Equal);
        targets[target->IgnoreParens()] = !plain;
      }
      return false;
    });
    // any_node visits the last child first: the accesses are put in the order of the text.
    std::vector<const clang::Expr*> found;
    any_node(expression, [&](const clang::Stmt* node) {
      if (const auto* candidate = llvm::dyn_cast<clang::Expr>(node)) found.push_back(candidate);
      return false;
    });
    const clang::SourceManager& sources = kernel_.sources();
    std::stable_sort(found.begin(), found.end(), [&](const clang::Expr* a, const clang::Expr* b) {
      return sources.isBeforeInTranslationUnit(sources.getExpansionLoc(a->getBeginLoc()),
                                               sources.getExpansionLoc(b->getBeginLoc()));
    });
    for (const clang::Expr* candidate : found) {
      Access access;
      if (!describe(candidate, &access)) continue;
      access.kernel = function_;
      access.expression = candidate;
      const auto target = targets.find(candidate);
      access.write = target != targets.end();
      access.read = !access.write || target->second;
      access.loops = loops_;
      access.loop_facts = loop_facts_;
      access.top_statement = top_;
      access.guard = std::vector<Comparison>();
      for (const auto& guard : guards_) {
        if (!guard) {
          access.guard.reset();
          break;
        }
        access.guard->insert(access.guard->end(), guard->begin(), guard->end());
      }
      accesses_.push_back(std::move(access));
    }
  }

  // Forgets what is known of the variables a statement assigns.
  void forget_assigned(const clang::Stmt* statement) {
    any_node(statement, [this](const clang::Stmt* node) {
      if (const clang::Expr* target = assigned_target(node)) {
        if (const clang::VarDecl* root = storage_root(target)) {
          if (forms_.count(root)) forms_[root].reset();
          if (pointers_.count(root)) pointers_[root] = Pointer{nullptr, std::nullopt, true};
        }
      }
      return false;
    });
  }

  void assign(const clang::Stmt* statement) {
    const clang::Expr* target = assigned_target(statement);
    const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(statement);
    const auto* reference =
        target ? llvm::dyn_cast<clang::DeclRefExpr>(target->IgnoreParenImpCasts()) : nullptr;
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (variable && binary && binary->getOpcode() == clang::BO_Assign) {
      set_form(variable, binary->getRHS());
    } else {
      forget_assigned(statement);
    }
  }

  // The loop's iterator and its form in the body (start + step * count); nothing for a loop
  // that is not `for (v = start; ...; v += step)` with v left alone in the body.
  const clang::VarDecl* iterator(const clang::ForStmt* loop, Affine* form, LoopFacts* facts) {
    const clang::Stmt* increment = loop->getInc();
    const clang::Expr* target = increment ? assigned_target(increment) : nullptr;
    const auto* reference =
        target ? llvm::dyn_cast<clang::DeclRefExpr>(target->IgnoreParenImpCasts()) : nullptr;
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (!variable || !forms_.count(variable) || !forms_[variable]) return nullptr;
    std::optional<Affine> step;
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(increment)) {
      step = Affine::constant(unary->isIncrementOp() ? 1 : -1);
    } else if (const auto* binary = llvm::dyn_cast<clang::CompoundAssignOperator>(increment)) {
      step = affine(binary->getRHS());
      if (step && binary->getOpcode() == clang::BO_SubAssign) step = Affine() - *step;
      if (binary->getOpcode() != clang::BO_AddAssign &&
          binary->getOpcode() != clang::BO_SubAssign) {
        step.reset();
      }
    }
    if (!step || !step->invariant()) return nullptr;
    bool assigned_in_body = false;
    any_node(loop->getBody(), [&](const clang::Stmt* node) {
      const clang::Expr* t = assigned_target(node);
      assigned_in_body |= t && storage_root(t) == variable;
      return assigned_in_body;
    });
    if (assigned_in_body) return nullptr;
    const std::optional<Affine> scaled = *step * Affine::term(variable->getNameAsString());
    *form = *forms_[variable] + *scaled;
    facts->iterator = variable;
    facts->start = forms_[variable];
    facts->step = step;
    return variable;
  }

  void walk(const clang::Stmt* statement, int depth) {
    if (!statement) return;
    if (depth == 1) top_ = statement;
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(statement)) {
      for (const clang::Stmt* child : block->body()) {
        walk(child, depth + 1);
        if (depth != 0) continue;
        // `if (...) return;` at the top level guards everything after it.
        if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(child);
            branch && !branch->getElse() && is_return_only(branch->getThen())) {
          guards_.push_back(comparisons(branch->getCond(), false));
        } else if (any_node(child,
                            [](const clang::Stmt* n) { return llvm::isa<clang::ReturnStmt>(n); })) {
          guards_.push_back(std::nullopt);
        }
      }
      return;
    }
    if (const auto* declarations = llvm::dyn_cast<clang::DeclStmt>(statement)) {
      for (const clang::Decl* declaration : declarations->decls()) {
        const auto* variable = llvm::dyn_cast<clang::VarDecl>(declaration);
        if (!variable) continue;
        collect(variable->getInit());
        if (!variable->hasAttr<clang::CUDASharedAttr>()) set_form(variable, variable->getInit());
      }
      return;
    }
    if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(statement)) {
      walk(branch->getInit(), depth + 1);
      collect(branch->getCond());
      const Forms before = forms_;
      guards_.push_back(comparisons(branch->getCond(), true));
      walk(branch->getThen(), depth + 1);
      guards_.pop_back();
      const Forms after_then = forms_;
      forms_ = before;
      guards_.push_back(comparisons(branch->getCond(), false));
      walk(branch->getElse(), depth + 1);
      guards_.pop_back();
      for (auto& [variable, form] : forms_) {
        const auto then_form = after_then.find(variable);
        if (then_form == after_then.end() || then_form->second != form) form.reset();
      }
      return;
    }
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(statement)) {
      walk(loop->getInit(), depth + 1);
      Affine form;
      LoopFacts facts;
      facts.loop = loop;
      const clang::VarDecl* variable = iterator(loop, &form, &facts);
      forget_assigned(loop->getBody());
      forget_assigned(loop->getInc());
      if (variable) {
        forms_[variable] = form;
        if (loop->getCond()) facts.condition = comparisons(loop->getCond(), true);
      }
      loops_.push_back(loop);
      loop_facts_.push_back(facts);
      collect(loop->getCond());
      walk(loop->getBody(), depth + 1);
      collect(loop->getInc());
      loops_.pop_back();
      loop_facts_.pop_back();
      forget_assigned(loop);
      if (variable) forms_[variable].reset();
      return;
    }
    if (llvm::isa<clang::WhileStmt, clang::DoStmt, clang::SwitchStmt>(statement)) {
      forget_assigned(statement);
      loops_.push_back(statement);
      LoopFacts facts;
      facts.loop = statement;
      loop_facts_.push_back(facts);
      for (const clang::Stmt* child : statement->children()) {
        if (llvm::isa_and_nonnull<clang::Expr>(child)) {
          collect(child);
        } else {
          walk(child, depth + 1);
        }
      }
      loops_.pop_back();
      loop_facts_.pop_back();
      forget_assigned(statement);
      return;
    }
    if (llvm::isa<clang::Expr>(statement)) {
      collect(statement);
      assign(statement);
      return;
    }
    for (const clang::Stmt* child : statement->children()) {
      if (llvm::isa_and_nonnull<clang::Expr>(child)) {
        collect(child);
      } else {
        walk(child, depth + 1);
      }
    }
  }
};

}  // namespace

const char* class_text(IndexClass c) {
  switch (c) {
    case IndexClass::kConstant:
      return "constant";
    case IndexClass::kIds:
      return "thread/block ids";
    case IndexClass::kLoop:
      return "loop iterator";
    case IndexClass::kUnknown:
      break;
  }
  return "unknown";
}

const char* coalescing_text(Coalescing c) {
  switch (c) {
    case Coalescing::kCoalesced:
      return "coalesced";
    case Coalescing::kUniform:
      return "uniform";
    case Coalescing::kUncoalesced:
      return "uncoalesced";
    case Coalescing::kUnknown:
      break;
  }
  return "unknown";
}

IndexClass index_class(const Access& access) {
  bool ids = false, loop = false;
  for (const auto& index : access.indices) {
    if (!index) return IndexClass::kUnknown;
    ids |= index->has_id_term();
    loop |= index->has_loop_term();
  }
  return loop ? IndexClass::kLoop : ids ? IndexClass::kIds : IndexClass::kConstant;
}

Coalescing coalescing(const Access& access) {
  if (index_class(access) == IndexClass::kUnknown) return Coalescing::kUnknown;
  // Every index but the last must be the same across the warp.
  for (size_t i = 0; i + 1 < access.indices.size(); ++i) {
    if (!access.indices[i]->coefficient("threadIdx.x").empty()) return Coalescing::kUncoalesced;
  }
  const Poly step = access.indices.back()->coefficient("threadIdx.x");
  if (step.empty()) return Coalescing::kUniform;
  return is_one(step) ? Coalescing::kCoalesced : Coalescing::kUncoalesced;
}

bool segment_reused(const Access& access) {
  if (index_class(access) == IndexClass::kUnknown) return false;
  for (const auto& [term, poly] : access.indices.back()->terms) {
    if (term != "threadIdx.x" && term.rfind("blockIdx.", 0) != 0 && !term.empty() && is_one(poly)) {
      return true;
    }
  }
  return false;
}

std::vector<Access> find_accesses(const ParsedKernel& kernel) {
  std::vector<Access> accesses;
  for (const clang::FunctionDecl* function : kernel.kernels()) {
    std::vector<Access> own = find_accesses(kernel, function);
    accesses.insert(accesses.end(), own.begin(), own.end());
  }
  return accesses;
}

std::vector<Access> find_accesses(const ParsedKernel& kernel, const clang::FunctionDecl* function) {
  if (!function->hasBody()) return {};
  return AccessWalk(kernel, function).run();
}

}  // namespace gputune::engine
