#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Type.h>
#include <clang/Frontend/ASTUnit.h>

#include <memory>

#include "engine/parsed_kernel.h"
#include "engine/signatures.h"

namespace gputune::engine {
namespace {

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
  Signatures out;
  // The engine's parse, which analyse() shares: a search parses the spec's kernel once.
  const std::shared_ptr<const ParsedKernel> kernel = source_engine().parse(unit);
  // Only the kernels' declarations matter here: the AST of a file with errors is read too.
  out.diagnostics = kernel->diagnostics().substr(0, kernel->diagnostics().find('\n'));
  if (!kernel->has_ast()) return out;
  out.parsed = kernel->ok();
  const clang::ASTContext& context = kernel->context();
  const clang::SourceManager& sources = kernel->sources();
  GlobalFunctions finder(sources);
  finder.TraverseDecl(context.getTranslationUnitDecl());
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
