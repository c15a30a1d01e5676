#include "engine/parsed_kernel.h"

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>

#include <algorithm>

#include "engine/cuda_prelude.h"

namespace gputune::engine {
namespace {

// Collects Clang's errors as "file:line:column: error: message" lines.
class ErrorCollector : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& diagnostic) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, diagnostic);
    if (level < clang::DiagnosticsEngine::Error) return;
    llvm::SmallString<256> message;
    diagnostic.FormatDiagnostic(message);
    std::string where;
    if (diagnostic.hasSourceManager() && diagnostic.getLocation().isValid()) {
      const clang::PresumedLoc presumed =
          diagnostic.getSourceManager().getPresumedLoc(diagnostic.getLocation());
      if (presumed.isValid()) {
        where = std::string(presumed.getFilename()) + ":" + std::to_string(presumed.getLine()) +
                ":" + std::to_string(presumed.getColumn()) + ": ";
      }
    }
    if (!text.empty()) text += "\n";
    text += where + "error: " + std::string(message.str());
  }
  std::string text;
};

std::vector<std::string> arguments(const KernelUnit& unit) {
  std::vector<std::string> args = {"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                                   "--no-cuda-version-check", "--cuda-gpu-arch=sm_90",
                                   "-nostdinc", "-std=c++17", "-fsyntax-only", "-w",
                                   "-ferror-limit=20", "-include", cuda_prelude_name()};
  for (const std::string& dir : unit.include_dirs) args.push_back("-I" + dir);
  for (const auto& [name, value] : unit.defines) args.push_back("-D" + name + "=" + value);
  return args;
}

// Every __global__ function defined in the main file.
class KernelFinder : public clang::RecursiveASTVisitor<KernelFinder> {
 public:
  explicit KernelFinder(const ParsedKernel& kernel) : kernel_(kernel) {}
  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (function->hasAttr<clang::CUDAGlobalAttr>() && function->doesThisDeclarationHaveABody() &&
        !function->isTemplateInstantiation() &&
        kernel_.in_main_file(function->getLocation())) {
      found.push_back(function);
    }
    return true;
  }
  std::vector<clang::FunctionDecl*> found;

 private:
  const ParsedKernel& kernel_;
};

std::string first_line(std::string text) {
  const size_t end = text.find('\n');
  if (end != std::string::npos) text = text.substr(0, end) + " ...";
  const size_t begin = text.find_first_not_of(" \t");
  return begin == std::string::npos ? "" : text.substr(begin);
}

}  // namespace

std::unique_ptr<clang::ASTUnit> parse_unit(const KernelUnit& unit, std::string* diagnostics) {
  ErrorCollector errors;
  const clang::tooling::FileContentMappings prelude = {{cuda_prelude_name(), cuda_prelude()}};
  std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      unit.text, arguments(unit), unit.file_name, "gputune-engine",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), prelude, &errors);
  *diagnostics =
      !ast && errors.text.empty() ? unit.file_name + ": Clang could not parse it" : errors.text;
  return ast;
}

std::unique_ptr<ParsedKernel> ParsedKernel::parse(const KernelUnit& unit) {
  std::unique_ptr<ParsedKernel> kernel(new ParsedKernel());
  kernel->unit_ = unit;
  kernel->ast_ = parse_unit(unit, &kernel->diagnostics_);
  if (!kernel->ast_) return kernel;
  kernel->ok_ = !kernel->ast_->getDiagnostics().hasErrorOccurred();
  if (!kernel->ok_) return kernel;
  KernelFinder finder(*kernel);
  finder.TraverseDecl(kernel->context().getTranslationUnitDecl());
  for (clang::FunctionDecl* function : finder.found) {
    const std::string name = function->getNameAsString();
    if (unit.kernels.empty() ||
        std::find(unit.kernels.begin(), unit.kernels.end(), name) != unit.kernels.end()) {
      kernel->kernels_.push_back(function);
    }
  }
  return kernel;
}

ParsedKernel::~ParsedKernel() = default;

std::optional<Builtin> ParsedKernel::builtin(const clang::ValueDecl* decl) const {
  const auto* variable = llvm::dyn_cast_or_null<clang::VarDecl>(decl);
  if (!variable || !variable->hasExternalStorage() || in_main_file(variable->getLocation())) {
    return std::nullopt;
  }
  const clang::PresumedLoc presumed = sources().getPresumedLoc(variable->getLocation());
  if (!presumed.isValid() || std::string(presumed.getFilename()).find(cuda_prelude_name()) ==
                                 std::string::npos) {
    return std::nullopt;
  }
  const std::string name = variable->getName().str();
  if (name == "threadIdx") return Builtin::kThreadIdx;
  if (name == "blockIdx") return Builtin::kBlockIdx;
  if (name == "blockDim") return Builtin::kBlockDim;
  if (name == "gridDim") return Builtin::kGridDim;
  return std::nullopt;
}

std::optional<std::pair<Builtin, char>> ParsedKernel::builtin_component(
    const clang::Expr* expr) const {
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr->IgnoreParenImpCasts());
  if (!member) return std::nullopt;
  const auto* base = llvm::dyn_cast<clang::DeclRefExpr>(member->getBase()->IgnoreParenImpCasts());
  if (!base) return std::nullopt;
  const std::optional<Builtin> which = builtin(base->getDecl());
  if (!which) return std::nullopt;
  const std::string field = member->getMemberDecl()->getName().str();
  if (field.size() != 1 || field[0] < 'x' || field[0] > 'z') return std::nullopt;
  return std::make_pair(*which, field[0]);
}

bool ParsedKernel::in_main_file(clang::SourceLocation location) const {
  if (location.isInvalid()) return false;
  return sources().isWrittenInMainFile(sources().getExpansionLoc(location));
}

clang::CharSourceRange ParsedKernel::file_range(clang::SourceRange range) const {
  // Through macros to the text of their invocation: `__launch_bounds__(256, 2)` for the
  // attribute it expands to.
  const clang::CharSourceRange expanded = clang::Lexer::makeFileCharRange(
      sources().getExpansionRange(range), sources(), language());
  if (expanded.isInvalid() || !sources().isWrittenInMainFile(expanded.getBegin())) return {};
  return expanded;
}

std::string ParsedKernel::text(clang::SourceRange range) const {
  const clang::CharSourceRange file = file_range(range);
  if (file.isInvalid()) return "";
  return clang::Lexer::getSourceText(file, sources(), language()).str();
}

std::string ParsedKernel::text(const clang::Stmt* statement) const {
  return text(statement->getSourceRange());
}

SourcePlace ParsedKernel::place(clang::SourceLocation location, const std::string& text) const {
  SourcePlace place;
  place.file = unit_.file_name;
  place.text = first_line(text);
  const clang::PresumedLoc presumed = sources().getPresumedLoc(sources().getExpansionLoc(location));
  if (presumed.isValid()) {
    place.line = static_cast<int>(presumed.getLine());
    place.column = static_cast<int>(presumed.getColumn());
  }
  return place;
}

SourcePlace ParsedKernel::place(const clang::Stmt* statement) const {
  return place(statement->getBeginLoc(), text(statement));
}

SourcePlace ParsedKernel::place(const clang::Decl* declaration) const {
  return place(declaration->getLocation(), text(declaration->getSourceRange()));
}

std::string ParsedKernel::macro_name(clang::SourceLocation location) const {
  if (!location.isMacroID()) return "";
  // Up through the expansions to the outermost one, which is invoked in the file.
  clang::SourceLocation outermost = location;
  while (location.isMacroID()) {
    outermost = location;
    location = sources().getImmediateExpansionRange(location).getBegin();
  }
  return clang::Lexer::getImmediateMacroName(outermost, sources(), language()).str();
}

std::string rewritten_source(const ParsedKernel& kernel, const clang::Rewriter& rewriter) {
  const clang::RewriteBuffer* buffer = rewriter.getRewriteBufferFor(kernel.main_file());
  return buffer ? std::string(buffer->begin(), buffer->end()) : kernel.unit().text;
}

std::string refusal(const SourcePlace& place, const std::string& knob, const std::string& what) {
  std::string message = place.str() + ": " + knob + ": " + what;
  if (!place.text.empty()) message += " (`" + place.text + "`)";
  return message;
}

}  // namespace gputune::engine
