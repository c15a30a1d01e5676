#include "engine/merge_text.h"

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

#include "engine/index_dependence.h"

namespace gputune::engine {
namespace {

// Whether a statement's own range stops short of the semicolon that ends it.
bool needs_semicolon(const clang::Stmt* statement) {
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(statement)) {
    return needs_semicolon(branch->getElse() ? branch->getElse() : branch->getThen());
  }
  if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(statement)) {
    return needs_semicolon(loop->getBody());
  }
  if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(statement)) {
    return needs_semicolon(loop->getBody());
  }
  if (const auto* choice = llvm::dyn_cast<clang::SwitchStmt>(statement)) {
    return needs_semicolon(choice->getBody());
  }
  if (const auto* label = llvm::dyn_cast<clang::LabelStmt>(statement)) {
    return needs_semicolon(label->getSubStmt());
  }
  if (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(statement)) {
    return needs_semicolon(attributed->getSubStmt());
  }
  if (const auto* label = llvm::dyn_cast<clang::SwitchCase>(statement)) {
    return needs_semicolon(label->getSubStmt());
  }
  return !llvm::isa<clang::CompoundStmt, clang::DeclStmt, clang::NullStmt>(statement);
}

class EditCollector : public clang::RecursiveASTVisitor<EditCollector> {
 public:
  EditCollector(const KernelText& text, const EditRules& rules) : text_(text), rules_(rules) {}

  bool TraverseStmt(clang::Stmt* node) {
    if (is_block_level(node)) return true;  // written for the real block already
    if (const auto* expr = llvm::dyn_cast_or_null<clang::Expr>(node)) {
      if (auto replacement = rules_.expression(expr)) {
        edits.push_back({text_.replaceable(expr->getSourceRange()), *replacement});
        return true;
      }
    }
    return clang::RecursiveASTVisitor<EditCollector>::TraverseStmt(node);
  }
  bool VisitMemberExpr(clang::MemberExpr* member) {
    if (const auto component = text_.kernel().builtin_component(member)) {
      if (auto replacement = rules_.builtin(component->first, component->second)) {
        edits.push_back({text_.replaceable(member->getSourceRange()), *replacement});
      }
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(ref->getDecl())) {
      if (auto replacement = rules_.use(variable)) {
        edits.push_back({text_.replaceable(ref->getLocation()), *replacement});
      }
    }
    return true;
  }
  bool VisitVarDecl(clang::VarDecl* variable) {
    if (auto replacement = rules_.declared(variable)) {
      edits.push_back({text_.replaceable(variable->getLocation()), *replacement});
    }
    return true;
  }
  std::vector<Edit> edits;

 private:
  const KernelText& text_;
  const EditRules& rules_;
};

}  // namespace

std::string rtrim(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n')) {
    text.pop_back();
  }
  return text;
}

KernelText::KernelText(const ParsedKernel& kernel, std::string knob)
    : kernel_(kernel), knob_(std::move(knob)) {
  const clang::SourceManager& sources = kernel.sources();
  file_ = sources.getBufferData(kernel.main_file()).str();
  // Every identifier the file spells, macros included, so that no new name meets one.
  clang::Lexer lexer(kernel.main_file(), sources.getBufferOrFake(kernel.main_file()), sources,
                     kernel.language());
  lexer.SetCommentRetentionState(false);
  clang::Token token;
  while (!lexer.LexFromRawLexer(token)) {
    if (token.is(clang::tok::raw_identifier)) names_.insert(token.getRawIdentifier().str());
  }
  if (token.is(clang::tok::raw_identifier)) names_.insert(token.getRawIdentifier().str());
}

unsigned KernelText::offset(clang::SourceLocation location) const {
  return kernel_.sources().getFileOffset(location);
}

Span KernelText::span(clang::SourceRange range) const {
  const clang::CharSourceRange file = kernel_.file_range(range);
  if (file.isInvalid()) {
    throw MergeRefusal{refusal(kernel_.place(range.getBegin()), knob_,
                               "this code does not lie in the kernel file itself")};
  }
  return {offset(file.getBegin()), offset(file.getEnd())};
}

Span KernelText::extent(const clang::Stmt* statement) const {
  Span result = span(statement->getSourceRange());
  if (!needs_semicolon(statement)) return result;
  const clang::SourceManager& sources = kernel_.sources();
  clang::Lexer lexer(sources.getLocForStartOfFile(kernel_.main_file()), kernel_.language(),
                     file_.data(), file_.data() + result.end, file_.data() + file_.size());
  clang::Token token;
  lexer.LexFromRawLexer(token);
  if (token.is(clang::tok::semi)) result.end = offset(token.getEndLoc());
  return result;
}

Span KernelText::replaceable(clang::SourceRange range) const {
  const clang::SourceManager& sources = kernel_.sources();
  // Through the arguments of macro invocations to where they are written, and through whole
  // invocations (`THREADS`, `AT(i)`) that the range begins or ends with.
  const clang::CharSourceRange chars = clang::Lexer::makeFileCharRange(
      clang::CharSourceRange::getTokenRange(range), sources, kernel_.language());
  if (chars.isInvalid() && (range.getBegin().isMacroID() || range.getEnd().isMacroID())) {
    const clang::SourceLocation inside =
        range.getBegin().isMacroID() ? range.getBegin() : range.getEnd();
    const std::string macro =
        clang::Lexer::getImmediateMacroName(inside, sources, kernel_.language()).str();
    throw MergeRefusal{
        refusal(kernel_.place(inside), knob_,
                "the code to rewrite lies inside the body of macro '" + macro +
                    "'; expand the macro in the kernel, or pass the value as its argument")};
  }
  if (chars.isInvalid() || !sources.isWrittenInMainFile(chars.getBegin())) {
    throw MergeRefusal{refusal(kernel_.place(range.getBegin()), knob_,
                               "the code to rewrite does not lie in the kernel file itself")};
  }
  return {offset(chars.getBegin()), offset(chars.getEnd())};
}

std::string KernelText::indent_at(unsigned offset) const {
  const size_t line = offset == 0 ? 0 : file_.rfind('\n', offset - 1);
  const size_t start = line == std::string::npos ? 0 : line + 1;
  size_t end = start;
  while (end < file_.size() && (file_[end] == ' ' || file_[end] == '\t')) ++end;
  return file_.substr(start, end - start);
}

std::string KernelText::body_indent(const clang::Stmt* body, const std::string& indent) const {
  const unsigned begin = extent(body).begin;
  const std::string own = indent_at(begin);
  const size_t line = begin == 0 ? std::string::npos : file_.rfind('\n', begin - 1);
  const size_t start = line == std::string::npos ? 0 : line + 1;
  return start + own.size() == begin ? own : indent + "  ";
}

std::string KernelText::attach(const std::string& header, const clang::Stmt* body,
                               const std::string& walked, const std::string& inner,
                               const std::string& indent) const {
  if (llvm::isa<clang::CompoundStmt>(body) || walked == text(extent(body))) return header + walked;
  return rtrim(header) + " {\n" + inner + walked + "\n" + indent + "}";
}

std::string KernelText::render(Span span, std::vector<Edit> edits) const {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.span.begin != b.span.begin ? a.span.begin < b.span.begin : a.span.end > b.span.end;
  });
  std::string out;
  unsigned at = span.begin;
  for (const Edit& edit : edits) {
    if (edit.span.begin < at || edit.span.end > span.end) continue;  // nested, or outside
    out += file_.substr(at, edit.span.begin - at) + edit.text;
    at = edit.span.end;
  }
  return out + file_.substr(at, span.end - at);
}

std::vector<Edit> KernelText::edits(const clang::Stmt* node, const EditRules& rules) const {
  EditCollector collector(*this, rules);
  collector.TraverseStmt(const_cast<clang::Stmt*>(node));
  return std::move(collector.edits);
}

std::string KernelText::declaration(clang::QualType type, const std::string& name) const {
  std::string text;
  llvm::raw_string_ostream out(text);
  clang::PrintingPolicy policy = kernel_.context().getPrintingPolicy();
  policy.SuppressTagKeyword = true;
  type.print(out, policy, name);
  return out.str();
}

std::optional<std::string> KernelText::zero(clang::QualType type) const {
  type = type.getUnqualifiedType();
  if (type->isScalarType()) return "(" + declaration(type, "") + ")0";
  if (type->isRecordType()) return declaration(type, "") + "()";
  return std::nullopt;
}

std::string KernelText::fresh(const std::string& base) {
  std::string name = base;
  while (names_.count(name)) name += "_";
  names_.insert(name);
  return name;
}

void KernelText::scale_launch_bounds(const clang::FunctionDecl& function, char op, int factor,
                                     clang::Rewriter& rewriter) const {
  const auto* bounds = function.getAttr<clang::CUDALaunchBoundsAttr>();
  if (!bounds || factor == 1) return;
  // The threads as the kernel's own `__launch_bounds__(...)` writes them, not in the body of a
  // macro that other kernels may share.
  const clang::CharSourceRange attribute = kernel_.file_range(bounds->getRange());
  std::optional<Span> at;
  try {
    at = replaceable(bounds->getMaxThreads()->getSourceRange());
  } catch (const MergeRefusal&) {
  }
  const bool written = at && attribute.isValid() && at->begin >= offset(attribute.getBegin()) &&
                       at->end <= offset(attribute.getEnd());
  if (!written) {
    if (op == '/') return;  // a smaller block keeps the bound true
    throw MergeRefusal{
        refusal(kernel_.place(bounds->getLocation(), kernel_.text(bounds->getRange())), knob_,
                "the block grows beyond the kernel's __launch_bounds__, whose threads are not "
                "written in the kernel's own __launch_bounds__(...) (a macro's body) where the "
                "merge could scale them")};
  }
  const clang::SourceLocation start = kernel_.sources().getLocForStartOfFile(kernel_.main_file());
  rewriter.ReplaceText(start.getLocWithOffset(at->begin), at->end - at->begin,
                       "(" + text(*at) + ") " + op + " " + std::to_string(factor));
}

}  // namespace gputune::engine
