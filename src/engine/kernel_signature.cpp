#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Type.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>

#include <memory>

#include "engine/cuda_prelude.h"
#include "engine/signatures.h"

namespace gputune::engine {
namespace {

// The first error, "file:line:column: error: message".
class FirstError : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& diagnostic) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, diagnostic);
    if (level < clang::DiagnosticsEngine::Error || !text.empty()) return;
    llvm::SmallString<256> message;
    diagnostic.FormatDiagnostic(message);
    if (diagnostic.hasSourceManager() && diagnostic.getLocation().isValid()) {
      const clang::PresumedLoc presumed =
          diagnostic.getSourceManager().getPresumedLoc(diagnostic.getLocation());
      if (presumed.isValid()) {
        text = std::string(presumed.getFilename()) + ":" + std::to_string(presumed.getLine()) +
               ":" + std::to_string(presumed.getColumn()) + ": ";
      }
    }
    text += "error: " + std::string(message.str());
  }
  std::string text;
};

// Every __global__ function defined in the main file whose declaration is valid: an error in a
// body (an intrinsic the prelude lacks) leaves the parameters as declared.
class GlobalFunctions : public clang::RecursiveASTVisitor<GlobalFunctions> {
 public:
  explicit GlobalFunctions(const clang::SourceManager& sources) : sources_(sources) {}
  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (!function->hasAttr<clang::CUDAGlobalAttr>() || !function->doesThisDeclarationHaveABody() ||
        function->isTemplateInstantiation() ||
        !sources_.isInMainFile(sources_.getExpansionLoc(function->getLocation()))) {
      return true;
    }
    bool valid = !function->isInvalidDecl();
    for (const clang::ParmVarDecl* parameter : function->parameters()) {
      valid = valid && !parameter->isInvalidDecl();
    }
    if (valid) found.push_back(function);
    return true;
  }
  std::vector<clang::FunctionDecl*> found;

 private:
  const clang::SourceManager& sources_;
};

// The spec's name of a built-in arithmetic type, by its size and signedness as NVRTC has them
// (LP64: long is 64 bits); "" for any other type.
std::string spec_type(clang::QualType type, const clang::ASTContext& context) {
  type = type.getCanonicalType();
  if (type->isDependentType()) return "";
  const auto* builtin = type->getAs<clang::BuiltinType>();
  if (builtin == nullptr) return "";
  if (builtin->getKind() == clang::BuiltinType::Float) return "float32";
  if (builtin->getKind() == clang::BuiltinType::Double) return "float64";
  if (!builtin->isInteger() || builtin->getKind() == clang::BuiltinType::Bool) return "";
  const uint64_t bits = context.getTypeSize(type);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return "";
  return (builtin->isSignedInteger() ? "int" : "uint") + std::to_string(bits);
}

ParameterFact fact_of(const clang::ParmVarDecl& parameter, const clang::ASTContext& context) {
  ParameterFact fact;
  fact.name = parameter.getNameAsString();
  // As adjusted: an array parameter is its pointer, as the launch passes it.
  const clang::QualType type = parameter.getType();
  fact.type = type.getAsString(context.getPrintingPolicy());
  const clang::QualType canonical = type.getCanonicalType();
  if (const auto* pointer = canonical->getAs<clang::PointerType>()) {
    fact.pointer = true;
    fact.const_pointee = pointer->getPointeeType().isConstQualified();
    fact.element = spec_type(pointer->getPointeeType(), context);
  } else if (canonical->isDependentType()) {
    fact.known = false;
  } else {
    fact.element = spec_type(canonical, context);
  }
  return fact;
}

}  // namespace

Signatures kernel_signatures(const KernelUnit& unit) {
  // As ParsedKernel parses (engine/parsed_kernel.cpp), but keeping the AST of a file with
  // errors: only the kernels' declarations matter here.
  std::vector<std::string> args = {"-x",
                                   "cuda",
                                   "--cuda-device-only",
                                   "-nocudainc",
                                   "-nocudalib",
                                   "--no-cuda-version-check",
                                   "--cuda-gpu-arch=sm_90",
                                   "-nostdinc",
                                   "-std=c++17",
                                   "-fsyntax-only",
                                   "-w",
                                   "-ferror-limit=20",
                                   "-include",
                                   cuda_prelude_name()};
  for (const std::string& dir : unit.include_dirs) args.push_back("-I" + dir);
  for (const auto& [name, value] : unit.defines) args.push_back("-D" + name + "=" + value);
  FirstError errors;
  const std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      unit.text, args, unit.file_name, "gputune-engine",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(),
      {{cuda_prelude_name(), cuda_prelude()}}, &errors);
  Signatures out;
  out.diagnostics = errors.text;
  if (!ast) {
    if (out.diagnostics.empty()) out.diagnostics = unit.file_name + ": Clang could not parse it";
    return out;
  }
  out.parsed = !ast->getDiagnostics().hasErrorOccurred();
  const clang::ASTContext& context = ast->getASTContext();
  const clang::SourceManager& sources = ast->getSourceManager();
  GlobalFunctions finder(sources);
  finder.TraverseDecl(ast->getASTContext().getTranslationUnitDecl());
  for (const clang::FunctionDecl* function : finder.found) {
    KernelSignature signature;
    signature.name = function->getNameAsString();
    const clang::PresumedLoc presumed =
        sources.getPresumedLoc(sources.getExpansionLoc(function->getLocation()));
    signature.place.file = unit.file_name;
    signature.place.text = signature.name;
    if (presumed.isValid()) {
      signature.place.line = static_cast<int>(presumed.getLine());
      signature.place.column = static_cast<int>(presumed.getColumn());
    }
    signature.templated = function->getDescribedFunctionTemplate() != nullptr;
    for (const clang::ParmVarDecl* parameter : function->parameters()) {
      signature.parameters.push_back(fact_of(*parameter, context));
    }
    out.kernels.push_back(std::move(signature));
  }
  return out;
}

}  // namespace gputune::engine
