#pragma once
// The text side of the merges (engine-internal): where statements lie in the kernel file, the
// edits a copy of a statement makes (a renamed variable, a rewritten built-in, a hoisted load),
// located by the AST and applied to the statement's own text, and fresh names.
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/parsed_kernel.h"

namespace clang {
class Rewriter;
}

namespace gputune::engine {

template <typename T>
bool contains(const clang::Stmt* node) {
  if (!node) return false;
  if (llvm::isa<T>(node)) return true;
  for (const clang::Stmt* child : node->children()) {
    if (contains<T>(child)) return true;
  }
  return false;
}

inline bool is_loop(const clang::Stmt* node) {
  return llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt>(node);
}

// The text without the whitespace that ends it.
std::string rtrim(std::string text);

// A piece of the kernel file, as offsets into its text.
struct Span {
  unsigned begin = 0, end = 0;
};

// Replace the text of `span` with `text`.
struct Edit {
  Span span;
  std::string text;
};

// What a copy of a statement changes; each answer replaces the node's text.
class EditRules {
 public:
  virtual ~EditRules() = default;
  // A read of a built-in's component (`threadIdx.y`).
  virtual std::optional<std::string> builtin(Builtin, char) const { return std::nullopt; }
  // A use of a variable, and its name where it is declared.
  virtual std::optional<std::string> use(const clang::VarDecl*) const { return std::nullopt; }
  virtual std::optional<std::string> declared(const clang::VarDecl*) const { return std::nullopt; }
  // A whole expression (a hoisted load): nothing inside it is edited.
  virtual std::optional<std::string> expression(const clang::Expr*) const { return std::nullopt; }
};

class KernelText {
 public:
  KernelText(const ParsedKernel& kernel, std::string knob);
  const ParsedKernel& kernel() const { return kernel_; }
  const std::string& knob() const { return knob_; }

  // Where a node's text lies in the file (through macros to their invocation); refuses where
  // it does not lie in the kernel file.
  Span span(clang::SourceRange range) const;
  // A statement's text with the semicolon that ends it (`x = 1;`, `if (c) x = 1;`).
  Span extent(const clang::Stmt* statement) const;
  // Where the text to replace for a node is written: in the file itself, in the argument of a
  // macro invocation, or as whole invocations of macros. Inside a macro's own body the merge
  // refuses, naming the macro.
  Span replaceable(clang::SourceRange range) const;
  // The whitespace that starts the line holding `offset`.
  std::string indent_at(unsigned offset) const;
  // The indentation for the statements of a control statement's body: the body's own where it
  // starts a line, else `indent` and two spaces.
  std::string body_indent(const clang::Stmt* body, const std::string& indent) const;
  // `header` (`for (...) `) and its body written as `walked`: braced, on lines of their own,
  // where the body is a single statement the rewrite changed.
  std::string attach(const std::string& header, const clang::Stmt* body, const std::string& walked,
                     const std::string& inner, const std::string& indent) const;
  std::string text(Span span) const { return file_.substr(span.begin, span.end - span.begin); }
  // The text of `span` with the edits that lie inside it applied; of nested edits the outer
  // one wins.
  std::string render(Span span, std::vector<Edit> edits) const;
  // The edits `rules` ask for inside a node.
  std::vector<Edit> edits(const clang::Stmt* node, const EditRules& rules) const;
  std::string render(const clang::Stmt* statement, const EditRules& rules) const {
    return render(extent(statement), edits(statement, rules));
  }
  std::string render_expr(const clang::Expr* expr, const EditRules& rules) const {
    return render(span(expr->getSourceRange()), edits(expr, rules));
  }
  // A declaration of `name` with `type` ("float v", "float tile[16][16]").
  std::string declaration(clang::QualType type, const std::string& name) const;
  // A value of `type` to initialise a variable with where its own initialiser must not run:
  // `(float)0`, `float4()`; nothing for arrays and references.
  std::optional<std::string> zero(clang::QualType type) const;
  // A name no identifier of the file has and none handed out before.
  std::string fresh(const std::string& base);
  // Keeps an existing `__launch_bounds__` of `function` true of its block where a merge
  // multiplies the block's threads by `factor` (`(256) * 4`; refuses where the threads are
  // written in a macro's body) or divides them by it (`(256) / 4`; leaves such a bound as it
  // is); nothing where the kernel has none.
  void scale_launch_bounds(const clang::FunctionDecl& function, char op, int factor,
                           clang::Rewriter& rewriter) const;

 private:
  const ParsedKernel& kernel_;
  std::string knob_;
  std::string file_;
  std::set<std::string> names_;
  unsigned offset(clang::SourceLocation location) const;
};

}  // namespace gputune::engine
