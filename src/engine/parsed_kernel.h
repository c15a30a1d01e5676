#pragma once
// A kernel file parsed by Clang (engine-internal: includes Clang).
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace clang {
class Rewriter;
}  // namespace clang

namespace gputune::engine {

// The unit parsed as CUDA device code (the prelude, the unit's macros and include folders), the
// AST kept where the file has errors; null where Clang built none. Clang's errors go to
// *diagnostics, "file:line:column: error: message", one per line.
std::unique_ptr<clang::ASTUnit> parse_unit(const KernelUnit& unit, std::string* diagnostics);

// The CUDA built-in variables, which the prelude declares (cuda_prelude.h).
enum class Builtin { kThreadIdx, kBlockIdx, kBlockDim, kGridDim };

class ParsedKernel {
 public:
  // Never throws for a source that does not parse: ok() is false and diagnostics() say why.
  static std::unique_ptr<ParsedKernel> parse(const KernelUnit& unit);
  ~ParsedKernel();

  bool ok() const { return ok_; }
  // Clang's errors, "file:line:column: error: message", one per line.
  const std::string& diagnostics() const { return diagnostics_; }
  const KernelUnit& unit() const { return unit_; }

  clang::ASTContext& context() const { return ast_->getASTContext(); }
  clang::SourceManager& sources() const { return ast_->getSourceManager(); }
  const clang::LangOptions& language() const { return ast_->getLangOpts(); }
  clang::FileID main_file() const { return sources().getMainFileID(); }

  // The definitions of the kernels the unit names (every __global__ function of the file when
  // it names none), in the order of the file; a template's pattern for a kernel template.
  const std::vector<clang::FunctionDecl*>& kernels() const { return kernels_; }

  // Which built-in a declaration is, if any.
  std::optional<Builtin> builtin(const clang::ValueDecl* decl) const;
  // The built-in and its component ('x', 'y' or 'z') that an expression reads, as in
  // `threadIdx.y`; nothing for anything else.
  std::optional<std::pair<Builtin, char>> builtin_component(const clang::Expr* expr) const;

  // Whether a location lies in the kernel file itself (not the prelude or a header), after
  // macro expansion to where the text is written.
  bool in_main_file(clang::SourceLocation location) const;
  // The text of a statement, declaration or range as written in the file, through macros to
  // the text of their invocation; "" where the range is not in the main file.
  std::string text(clang::SourceRange range) const;
  std::string text(const clang::Stmt* statement) const;
  // The file range of a node: its expansion range, in characters; invalid when it does not lie
  // within the main file or starts and ends in different macro arguments.
  clang::CharSourceRange file_range(clang::SourceRange range) const;
  // Where a node is, and its first line of text, for refusals and reports.
  SourcePlace place(clang::SourceLocation location, const std::string& text = "") const;
  SourcePlace place(const clang::Stmt* statement) const;
  SourcePlace place(const clang::Decl* declaration) const;
  // The macro, as invoked in the kernel file, whose expansion holds a location ("" where the
  // text is written in the file itself): the rewrites cannot edit such text, and say so.
  std::string macro_name(clang::SourceLocation location) const;

  // The parse of the user's own text that this one's text was rewritten from (itself for the
  // user's text). Lines move as earlier steps rewrite the text, so a later step resolves the
  // user's targets (a line, a label) and places its refusals there.
  const ParsedKernel& original() const { return original_ ? *original_ : *this; }
  void set_original(std::shared_ptr<const ParsedKernel> original) {
    original_ = std::move(original);
  }

 private:
  ParsedKernel() = default;
  KernelUnit unit_;
  std::unique_ptr<clang::ASTUnit> ast_;
  bool ok_ = false;
  std::string diagnostics_;
  std::vector<clang::FunctionDecl*> kernels_;
  std::shared_ptr<const ParsedKernel> original_;
};

// The kernel file's text after a rewriter's edits to it: the unit's text as it is where the
// rewriter made none there (a knob that leaves this kernel as written).
std::string rewritten_source(const ParsedKernel& kernel, const clang::Rewriter& rewriter);

// "file:line:column: knob: what" for a refusal at a place.
std::string refusal(const SourcePlace& place, const std::string& knob, const std::string& what);

}  // namespace gputune::engine
