#include "engine/call_facts.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>

#include <algorithm>
#include <set>

#include "engine/cuda_prelude.h"

namespace gputune::engine {
namespace {

bool in_prelude(const ParsedKernel& kernel, const clang::Decl* decl) {
  const clang::PresumedLoc presumed = kernel.sources().getPresumedLoc(decl->getLocation());
  return presumed.isValid() &&
         std::string(presumed.getFilename()).find(cuda_prelude_name()) != std::string::npos;
}

// A volatile object, or a pointer or reference to one.
bool volatile_access(const clang::Expr* expr) {
  const clang::QualType type = expr->getType();
  if (type.isNull()) return false;
  if (type.isVolatileQualified()) return true;
  const clang::QualType pointee = type->getPointeeType();
  return !pointee.isNull() && pointee.isVolatileQualified();
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// What a function of the prelude does, by its name.
CallKind prelude_kind(const std::string& name) {
  if (name == "__syncthreads") return CallKind::kBarrier;
  if (starts_with(name, "__syncthreads_")) return CallKind::kBlockVote;
  if (starts_with(name, "__shfl") || name == "__ballot_sync" || name == "__any_sync" ||
      name == "__all_sync" || name == "__activemask" || name == "__syncwarp") {
    return CallKind::kWarp;
  }
  if (starts_with(name, "atomic") || starts_with(name, "__threadfence") || name == "printf" ||
      name == "__trap" || name == "__brkpt" || name == "memcpy" || name == "memset" ||
      starts_with(name, "clock") || starts_with(name, "sincos")) {
    return CallKind::kEffect;
  }
  if (name == "__ldg") return CallKind::kReads;
  return CallKind::kPure;
}

const char* builtin_name(Builtin builtin) {
  switch (builtin) {
    case Builtin::kThreadIdx:
      return "threadIdx";
    case Builtin::kBlockIdx:
      return "blockIdx";
    case Builtin::kBlockDim:
      return "blockDim";
    case Builtin::kGridDim:
      return "gridDim";
  }
  return "";
}

// Everything of a function body the merges need to know before they look at dependence: its
// calls, the built-ins it reads, what it reads and writes, and the constructs they refuse.
class BodyScan : public clang::RecursiveASTVisitor<BodyScan> {
 public:
  explicit BodyScan(const ParsedKernel& kernel) : kernel_(kernel) {}

  bool VisitCallExpr(clang::CallExpr* call) {
    calls.push_back(call);
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* member) {
    if (const auto component = kernel_.builtin_component(member)) {
      components.push_back({component->first, component->second, member});
      covered_.insert(member->getBase()->IgnoreParenImpCasts());
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (const auto which = kernel_.builtin(ref->getDecl())) {
      if (!covered_.count(ref)) whole.push_back({*which, ref});
    }
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    if (op->isAssignmentOp()) note_write(op->getLHS());
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* op) {
    if (op->isIncrementDecrementOp()) note_write(op->getSubExpr());
    return true;
  }
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* cast) {
    if (cast->getCastKind() == clang::CK_LValueToRValue && !local(cast->getSubExpr())) {
      reads_memory = true;
    }
    return true;
  }
  bool VisitStmt(clang::Stmt* statement) {
    if (llvm::isa<clang::GotoStmt, clang::IndirectGotoStmt>(statement)) {
      unsupported.push_back({statement, "goto"});
    } else if (llvm::isa<clang::AsmStmt>(statement)) {
      unsupported.push_back({statement, "inline assembly"});
    } else if (llvm::isa<clang::CXXForRangeStmt>(statement)) {
      unsupported.push_back({statement, "a range-based for loop"});
    } else if (llvm::isa<clang::CXXTryStmt>(statement)) {
      unsupported.push_back({statement, "try"});
    } else if (llvm::isa<clang::LambdaExpr>(statement)) {
      unsupported.push_back({statement, "a lambda"});
    } else if (const auto* expr = llvm::dyn_cast<clang::Expr>(statement)) {
      // A template's pattern leaves such expressions without the casts that say what is read
      // from memory and what is a variable's own value.
      if (expr->isTypeDependent()) {
        unsupported.push_back(
            {statement, "an expression whose type depends on a template parameter"});
      } else if (volatile_access(expr)) {
        unsupported.push_back({statement, "volatile memory (warp-synchronous code)"});
      }
    }
    return true;
  }

  struct Component {
    Builtin builtin;
    char component;
    const clang::MemberExpr* expr;
  };
  struct Whole {
    Builtin builtin;
    const clang::DeclRefExpr* expr;
  };
  struct Unsupported {
    const clang::Stmt* statement;
    const char* what;
  };
  std::vector<clang::CallExpr*> calls;
  std::vector<Component> components;
  std::vector<Whole> whole;
  std::vector<Unsupported> unsupported;
  bool writes_memory = false, reads_memory = false;

 private:
  const ParsedKernel& kernel_;
  std::set<const clang::Expr*> covered_;
  bool local(const clang::Expr* glvalue) const {
    const clang::VarDecl* root = storage_root(glvalue);
    return root && root->hasLocalStorage();
  }
  void note_write(const clang::Expr* target) {
    if (!local(target)) writes_memory = true;
  }
};

}  // namespace

Dims dim_of(char component) { return component == 'x' ? kDimX : component == 'y' ? kDimY : 0; }

const clang::DeclRefExpr* storage_ref(const clang::Expr* glvalue) {
  const clang::Expr* expr = glvalue;
  while (true) {
    expr = expr->IgnoreParens();
    if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(expr)) {
      if (cast->getCastKind() != clang::CK_NoOp &&
          cast->getCastKind() != clang::CK_ArrayToPointerDecay) {
        return nullptr;
      }
      expr = cast->getSubExpr();
    } else if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
      if (member->isArrow()) return nullptr;
      expr = member->getBase();
    } else if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(expr)) {
      // Only an array held in the variable itself: a pointer's elements are memory.
      const clang::Expr* base = subscript->getBase()->IgnoreParens();
      const auto* decay = llvm::dyn_cast<clang::ImplicitCastExpr>(base);
      if (!decay || decay->getCastKind() != clang::CK_ArrayToPointerDecay) return nullptr;
      expr = decay->getSubExpr();
    } else if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
      const auto* variable = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      // A reference is not storage: writing through it writes what it refers to.
      if (!variable || variable->getType()->isReferenceType()) return nullptr;
      return ref;
    } else {
      return nullptr;
    }
  }
}

const clang::VarDecl* storage_root(const clang::Expr* glvalue) {
  const clang::DeclRefExpr* ref = storage_ref(glvalue);
  return ref ? llvm::cast<clang::VarDecl>(ref->getDecl()) : nullptr;
}

const clang::Expr* assigned_target(const clang::Stmt* node) {
  if (const auto* op = llvm::dyn_cast<clang::BinaryOperator>(node)) {
    if (op->isAssignmentOp()) return op->getLHS();
  } else if (const auto* op = llvm::dyn_cast<clang::UnaryOperator>(node)) {
    if (op->isIncrementDecrementOp()) return op->getSubExpr();
  } else if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(node)) {
    const auto kind = op->getOperator();
    if ((op->isAssignmentOp() || kind == clang::OO_PlusPlus || kind == clang::OO_MinusMinus) &&
        op->getNumArgs() > 0) {
      return op->getArg(0);
    }
  }
  return nullptr;
}

const clang::Expr* read_glvalue(const clang::Stmt* node) {
  if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(node)) {
    if (cast->getCastKind() == clang::CK_LValueToRValue) return cast->getSubExpr();
  }
  if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(node)) {
    if (construct->getConstructor()->isCopyOrMoveConstructor() && construct->getNumArgs() == 1 &&
        construct->getArg(0)->isGLValue()) {
      return construct->getArg(0);
    }
  }
  return nullptr;
}

CallFacts::CallFacts(const ParsedKernel& kernel, std::string knob)
    : kernel_(kernel), knob_(std::move(knob)) {}

CallKind CallFacts::kind(const clang::CallExpr* call) const {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee) return CallKind::kEffect;  // through a pointer, or not resolved in a template
  if (in_prelude(kernel_, callee)) return prelude_kind(callee->getNameAsString());
  return helper_kind(callee);
}

CallKind CallFacts::helper_kind(const clang::FunctionDecl* function) const {
  const clang::FunctionDecl* definition = function->getDefinition();
  if (!definition || !definition->getBody()) return CallKind::kEffect;
  const auto found = helper_kinds_.find(definition);
  if (found != helper_kinds_.end()) return found->second;
  helper_kinds_[definition] = CallKind::kPure;  // a recursive call adds nothing
  BodyScan scan(kernel_);
  scan.TraverseStmt(definition->getBody());
  CallKind result = scan.writes_memory  ? CallKind::kEffect
                    : scan.reads_memory ? CallKind::kReads
                                        : CallKind::kPure;
  for (const clang::CallExpr* call : scan.calls) {
    result = std::max(result, kind(call));
  }
  helper_kinds_[definition] = result;
  return result;
}

bool CallFacts::has_barrier(const clang::Stmt* statement) const {
  if (!statement) return false;
  const auto found = barriers_.find(statement);
  if (found != barriers_.end()) return found->second;
  bool barrier = false;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(statement)) {
    barrier = kind(call) == CallKind::kBarrier;
  }
  for (const clang::Stmt* child : statement->children()) {
    if (barrier) break;
    barrier = has_barrier(child);
  }
  barriers_[statement] = barrier;
  return barrier;
}

const clang::Stmt* CallFacts::first_barrier(const clang::Stmt* statement) const {
  if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(statement)) {
    if (kind(call) == CallKind::kBarrier) return call;
  }
  for (const clang::Stmt* child : statement->children()) {
    if (child && has_barrier(child)) return first_barrier(child);
  }
  return statement;
}

void CallFacts::check(const clang::FunctionDecl& kernel, const std::vector<Builtin>& builtins,
                      Dims merged) const {
  auto affected = [&](Builtin builtin) {
    return std::find(builtins.begin(), builtins.end(), builtin) != builtins.end();
  };
  BodyScan scan(kernel_);
  scan.TraverseStmt(kernel.getBody());
  for (const BodyScan::Unsupported& found : scan.unsupported) {
    throw MergeRefusal{
        refusal(kernel_.place(found.statement), knob_,
                std::string("the engine does not merge kernels with ") + found.what)};
  }
  for (const BodyScan::Whole& found : scan.whole) {
    if (!affected(found.builtin)) continue;
    throw MergeRefusal{
        refusal(kernel_.place(found.expr), knob_,
                std::string("`") + builtin_name(found.builtin) +
                    "` is used whole; the engine rewrites only its components (.x, .y, .z)")};
  }
  // Helpers reached from the kernel, each once: what they read and call.
  std::vector<const clang::FunctionDecl*> pending;
  std::set<const clang::FunctionDecl*> seen;
  auto visit_calls = [&](const std::vector<clang::CallExpr*>& calls, bool in_kernel) {
    for (const clang::CallExpr* call : calls) {
      const CallKind call_kind = kind(call);
      const clang::FunctionDecl* callee = call->getDirectCallee();
      const std::string name = callee ? callee->getNameAsString() : "";
      const bool helper = callee && !in_prelude(kernel_, callee);
      if (call_kind == CallKind::kWarp) {
        throw MergeRefusal{refusal(kernel_.place(call), knob_,
                                   (helper ? "helper '" + name + "' calls a warp-level function"
                                           : "warp-level function '" + name + "'") +
                                       ": merging changes which threads share a warp")};
      }
      if (call_kind == CallKind::kBlockVote) {
        throw MergeRefusal{refusal(kernel_.place(call), knob_,
                                   "'" + name +
                                       "' combines a value over the real block's threads, "
                                       "which merging changes")};
      }
      if (helper && call_kind == CallKind::kBarrier) {
        throw MergeRefusal{refusal(kernel_.place(call), knob_,
                                   "helper '" + name +
                                       "' calls __syncthreads; the engine merges barriers only "
                                       "in the kernel's own body")};
      }
      if (helper && in_kernel) {
        const clang::FunctionDecl* definition = callee->getDefinition();
        if (definition && seen.insert(definition).second) pending.push_back(definition);
      }
    }
  };
  visit_calls(scan.calls, true);
  while (!pending.empty()) {
    const clang::FunctionDecl* helper = pending.back();
    pending.pop_back();
    BodyScan inner(kernel_);
    inner.TraverseStmt(helper->getBody());
    for (const BodyScan::Component& found : inner.components) {
      if (!affected(found.builtin) || !(dim_of(found.component) & merged)) continue;
      throw MergeRefusal{refusal(kernel_.place(helper), knob_,
                                 "helper '" + helper->getNameAsString() + "' reads " +
                                     builtin_name(found.builtin) + "." + found.component +
                                     " itself; pass it as an argument so the engine can "
                                     "rewrite it")};
    }
    for (const BodyScan::Whole& found : inner.whole) {
      if (!affected(found.builtin)) continue;
      throw MergeRefusal{refusal(kernel_.place(helper), knob_,
                                 "helper '" + helper->getNameAsString() + "' reads " +
                                     builtin_name(found.builtin) + " itself")};
    }
    for (const clang::CallExpr* call : inner.calls) {
      const clang::FunctionDecl* callee = call->getDirectCallee();
      if (!callee || in_prelude(kernel_, callee)) continue;
      const clang::FunctionDecl* definition = callee->getDefinition();
      if (definition && seen.insert(definition).second) pending.push_back(definition);
    }
  }
}

bool any_node(const clang::Stmt* root, const std::function<bool(const clang::Stmt*)>& found) {
  std::vector<const clang::Stmt*> pending{root};
  while (!pending.empty()) {
    const clang::Stmt* at = pending.back();
    pending.pop_back();
    if (!at) continue;
    if (found(at)) return true;
    for (const clang::Stmt* child : at->children()) pending.push_back(child);
  }
  return false;
}

bool is_block_level(const clang::Stmt* node) {
  const auto* block = llvm::dyn_cast_or_null<clang::CompoundStmt>(node);
  if (!block || block->body_empty()) return false;
  const auto* first = llvm::dyn_cast<clang::DeclStmt>(block->body_front());
  if (!first || !first->isSingleDecl()) return false;
  const auto* variable = llvm::dyn_cast<clang::VarDecl>(first->getSingleDecl());
  return variable && variable->getName() == kBlockThread;
}

}  // namespace gputune::engine
