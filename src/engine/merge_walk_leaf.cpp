// ThreadMergeWalk's leaves: declarations, statements replicated per copy, and the loads hoisted
// out of them so that copies share one load in a register.
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>

#include "engine/merge_walk.h"

namespace gputune::engine {
namespace {

// A leaf's expression that loads may be hoisted out of: an assignment, or a declaration's
// initialiser.
const clang::Expr* hoist_root(const clang::Stmt* node) {
  if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(node)) {
    const auto* variable =
        decls->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(decls->getSingleDecl()) : nullptr;
    if (variable && variable->getInit() && variable->getInitStyle() == clang::VarDecl::CInit) {
      return variable->getInit();
    }
    return nullptr;
  }
  const auto* expr = llvm::dyn_cast<clang::Expr>(node);
  if (!expr) return nullptr;
  expr = expr->IgnoreParens();
  if (const auto* cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(expr)) {
    expr = cleanups->getSubExpr();
  }
  return assigned_target(expr) ? expr : nullptr;
}

bool hoistable_type(clang::QualType type) {
  if (type.isNull() || type->isDependentType() || type->isVoidType() || type->isArrayType()) {
    return false;
  }
  if (type->isScalarType()) return true;
  const auto* record = type->getAsCXXRecordDecl();
  return record && record->hasDefinition() && record->isTriviallyCopyable();
}

std::string join_lines(const std::vector<std::string>& lines, const std::string& indent) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" + indent : "") + lines[i];
  return out;
}

}  // namespace

// Whether a node computes from variables alone, hoisted loads aside, with no effect but the
// assignment `top`; such a statement may run for a copy whose predicate is false.
bool ThreadMergeWalk::pure(const clang::Stmt* node, const clang::Stmt* top) const {
  return dep_.pure(node, top, [this](const clang::Expr* expr) { return hoisted_.count(expr) > 0; });
}

// An assignment to a variable declared under the current predicates, computed from variables
// alone: a copy whose predicate is false computes a value no one reads.
bool ThreadMergeWalk::local_only(const clang::Stmt* node, const Layer& layer) const {
  const clang::Expr* root = hoist_root(node);
  if (!root || llvm::isa<clang::DeclStmt>(node)) return false;
  const clang::VarDecl* variable = storage_root(assigned_target(root));
  if (!variable || !dep_.is_private(variable)) return false;
  const auto found = layer_of_.find(variable);
  return found != layer_of_.end() && found->second == layer.id && pure(root, root);
}

// The largest parts of `node` that depend on fewer dimensions than the statement and read
// memory, where they are evaluated whenever the statement is (not behind ?:, && or ||).
void ThreadMergeWalk::hoistable(const clang::Stmt* node, Dims dims, bool top,
                                std::vector<const clang::Expr*>& found) const {
  if (!node) return;
  if (const auto* expr = llvm::dyn_cast<clang::Expr>(node)) {
    if (!top && expr->isPRValue() && dep_.dims(expr) != dims && hoistable_type(expr->getType()) &&
        dep_.reads_memory(expr) && expr->getBeginLoc().isFileID() && expr->getEndLoc().isFileID()) {
      found.push_back(expr);
      return;
    }
  }
  if (const auto* conditional = llvm::dyn_cast<clang::ConditionalOperator>(node)) {
    hoistable(conditional->getCond(), dims, false, found);
    return;
  }
  if (const auto* op = llvm::dyn_cast<clang::BinaryOperator>(node); op && op->isLogicalOp()) {
    hoistable(op->getLHS(), dims, false, found);
    return;
  }
  for (const clang::Stmt* child : node->children()) hoistable(child, dims, false, found);
}

// Declarations of the loads of `root` that copies share, one per copy of the load's own
// dimensions, each under the predicates of the copies that use it.
std::string ThreadMergeWalk::hoist(const clang::Expr* root, Dims dims, Layer& layer,
                                   const std::string& indent) {
  // Moving a load ahead is safe where nothing else in the statement acts before it.
  const auto acts_before = [&](const clang::Stmt* at) {
    if (at != root && assigned_target(at)) return true;
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(at)) {
      const CallKind kind = facts_.kind(call);
      if (kind != CallKind::kPure && kind != CallKind::kReads) return true;
    }
    return false;
  };
  if (any_node(root, acts_before)) return "";
  std::vector<const clang::Expr*> found;
  hoistable(root, dims, assigned_target(root) != nullptr, found);
  std::string out;
  for (const clang::Expr* expr : found) {
    Hoist hoist{dep_.dims(expr), {}};
    const clang::QualType type = expr->getType().getUnqualifiedType();
    for (int c = 0; c < factors_.count(hoist.dims); ++c) {
      const std::string name = text_.fresh("gputune_t" + std::to_string(next_temp_++));
      const std::string g = guard(layer, hoist.dims, c);
      const std::string value = text_.render_expr(expr, CopyRules(*this, hoist.dims, c));
      out += text_.declaration(type, name) + " = " +
             (g.empty() ? value : g + " ? (" + value + ") : " + zero(expr, type)) + ";\n" + indent;
      hoist.names.push_back(name);
    }
    hoisted_[expr] = hoist;
    stats_.shared_loads.push_back(expr);
  }
  return out;
}

std::string ThreadMergeWalk::zero(const clang::Stmt* at, clang::QualType type) const {
  if (auto value = text_.zero(type)) return *value;
  refuse(at, "a variable of this type cannot be declared under a condition that depends on " +
                 dims_text("threadIdx", dep_.merged()));
  return "";
}

std::string ThreadMergeWalk::leaf(const clang::Stmt* node, Layer& layer,
                                  const std::string& indent) {
  const Dims dims = dep_.replication(node);
  if (!dims) return text_.render(node, CopyRules(*this, 0, 0));
  const clang::Expr* root = hoist_root(node);
  const std::string hoisted =
      root && dims == dep_.dims(node) ? hoist(root, dims, layer, indent) : "";
  return hoisted + replicate(node, dims, layer, indent, !local_only(node, layer));
}

std::string ThreadMergeWalk::declaration(const clang::DeclStmt* node, Layer& layer,
                                         const std::string& indent) {
  std::vector<const clang::VarDecl*> variables;
  for (const clang::Decl* decl : node->decls()) {
    const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl);
    if (variable) {
      variables.push_back(variable);
      layer_of_[variable] = layer.id;
    }
  }
  if (!dep_.dims(node)) return text_.render(node, CopyRules(*this, 0, 0));
  if (variables.size() !=
      static_cast<size_t>(std::distance(node->decl_begin(), node->decl_end()))) {
    refuse(node, "a declaration of types beside variables that depend on " +
                     dims_text("threadIdx", dep_.dims(node)));
  }
  ++stats_.replicated;
  // The initialiser of one copy, under the copy's predicate where it reads memory.
  const auto initial = [&](const clang::VarDecl* variable, Dims dims, int c) {
    const clang::Expr* init = variable->getInit();
    const std::string value = text_.render_expr(init, CopyRules(*this, dims, c));
    const std::string g = pure(init, nullptr) ? "" : guard(layer, dims, c);
    if (g.empty()) return value;
    if (variable->getInitStyle() != clang::VarDecl::CInit || llvm::isa<clang::InitListExpr>(init)) {
      refuse(node, "a declaration under a condition that depends on " +
                       dims_text("threadIdx", layer.dims) + " needs the form `T v = value;`");
    }
    return g + " ? (" + value + ") : " + zero(node, variable->getType());
  };
  if (variables.size() == 1) {
    const clang::VarDecl* variable = variables[0];
    const Dims dims = dep_.dims(variable);
    const clang::Expr* init = hoist_root(node);
    std::string out = init ? hoist(init, dims, layer, indent) : "";
    // The declaration as written, the initialiser replaced where it needs a predicate.
    class Rules : public CopyRules {
     public:
      Rules(ThreadMergeWalk& walk, Dims dims, int copy, const clang::Expr* init, std::string value)
          : CopyRules(walk, dims, copy), init_(init), value_(std::move(value)) {}
      std::optional<std::string> expression(const clang::Expr* expr) const override {
        if (expr == init_) return value_;
        return CopyRules::expression(expr);
      }

     private:
      const clang::Expr* init_;
      std::string value_;
    };
    std::vector<std::string> copies;
    for (int c = 0; c < factors_.count(dims); ++c) {
      const clang::Expr* own = variable->getInit();
      copies.push_back(
          own ? text_.render(node, Rules(*this, dims, c, own, initial(variable, dims, c)))
              : text_.render(node, CopyRules(*this, dims, c)));
    }
    return out + join_lines(copies, indent);
  }
  // Several variables: one declaration each, since they may have different copies.
  std::vector<std::string> lines;
  for (const clang::VarDecl* variable : variables) {
    const Dims dims = dep_.dims(variable);
    if (variable->getInit() && variable->getInitStyle() != clang::VarDecl::CInit) {
      refuse(node,
             "declare each variable that depends on " + dims_text("threadIdx", dims) + " with `=`");
    }
    for (int c = 0; c < factors_.count(dims); ++c) {
      const std::string name = dims ? this->name(variable, c) : variable->getNameAsString();
      lines.push_back(text_.declaration(variable->getType(), name) +
                      (variable->getInit() ? " = " + initial(variable, dims, c) : "") + ";");
    }
  }
  return join_lines(lines, indent);
}

}  // namespace gputune::engine
