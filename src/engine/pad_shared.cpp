// pad_shared: P extra elements on the last extent of each 2-D (or higher) __shared__ array
// declared in a transformed kernel, or of the one named, so that threads reading down a column
// hit different banks. Legal only where the program cannot see the layout: every use of the
// array subscripts it fully; an array that decays to a pointer, is passed on, measured by
// sizeof or has an element's address taken (a vector load through it would lose its alignment)
// is refused, naming the use. Rank 10: the first step, on the user's text.
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <cctype>

#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "pad_shared";

struct SharedArray {
  const clang::VarDecl* variable = nullptr;
  int rank = 0;
  clang::ArrayTypeLoc last_extent;  // where the padding goes
  std::string obstacle;             // why it cannot be padded ("" where it can)
  SourcePlace obstacle_place;       // the use or declaration the obstacle names
};

// The __shared__ arrays declared in the kernels, and every reference to each.
class SharedFinder : public clang::RecursiveASTVisitor<SharedFinder> {
 public:
  bool VisitVarDecl(clang::VarDecl* variable) {
    if (variable->hasAttr<clang::CUDASharedAttr>() && variable->getType()->isArrayType()) {
      arrays.push_back(variable);
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* reference) {
    references.push_back(reference);
    return true;
  }
  std::vector<const clang::VarDecl*> arrays;
  std::vector<const clang::DeclRefExpr*> references;
};

const clang::Stmt* parent_of(const ParsedKernel& kernel, const clang::Stmt* statement) {
  const clang::DynTypedNodeList parents = kernel.context().getParents(*statement);
  return parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
}

// The first enclosing node that is not a parenthesis or an implicit conversion.
const clang::Stmt* use_of(const ParsedKernel& kernel, const clang::Stmt* expression) {
  const clang::Stmt* parent = parent_of(kernel, expression);
  while (parent && llvm::isa<clang::ParenExpr, clang::ImplicitCastExpr>(parent)) {
    parent = parent_of(kernel, parent);
  }
  return parent;
}

bool strips_to(const clang::Expr* expression, const clang::Stmt* target) {
  return expression && expression->IgnoreParenImpCasts() == target;
}

// An element's address handed straight to one of CUDA's own functions (atomicAdd, __ldg) that
// takes a pointer to that element's type: the function touches that one element. In a template
// the call may not be resolved yet: then every candidate must be CUDA's and one must fit.
bool is_builtin_element_access(const ParsedKernel& kernel, const clang::Stmt* address,
                               const clang::QualType element) {
  const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(use_of(kernel, address));
  if (!call) return false;
  unsigned argument = 0;
  while (argument < call->getNumArgs() && !strips_to(call->getArg(argument), address)) ++argument;
  if (argument == call->getNumArgs()) return false;
  std::vector<const clang::FunctionDecl*> candidates;
  if (const clang::FunctionDecl* callee = call->getDirectCallee()) {
    candidates.push_back(callee);
  } else if (const auto* lookup = llvm::dyn_cast<clang::UnresolvedLookupExpr>(
                 call->getCallee()->IgnoreParenImpCasts())) {
    for (const clang::NamedDecl* found : lookup->decls()) {
      if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(found)) {
        candidates.push_back(function);
      } else {
        return false;
      }
    }
  }
  bool fits = false;
  for (const clang::FunctionDecl* candidate : candidates) {
    if (kernel.in_main_file(candidate->getLocation())) return false;
    if (argument >= candidate->getNumParams()) continue;
    const clang::QualType parameter = candidate->getParamDecl(argument)->getType();
    fits |= parameter->isPointerType() &&
            kernel.context().hasSameUnqualifiedType(parameter->getPointeeType(), element);
  }
  return fits;
}

// A use of the array that shows its layout, and why.
struct Leak {
  std::string reason;
  const clang::Stmt* use = nullptr;  // the expression that shows it
};

// How a reference to the array shows its layout; no reason where it subscripts it fully.
Leak layout_leak(const ParsedKernel& kernel, const clang::DeclRefExpr* reference, int rank,
                 clang::QualType element) {
  const clang::Stmt* current = reference;
  int subscripts = 0;
  const clang::Stmt* parent = use_of(kernel, current);
  while (subscripts < rank) {
    const auto* subscript = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(parent);
    if (!subscript || !strips_to(subscript->getBase(), current)) break;
    ++subscripts;
    current = subscript;
    parent = use_of(kernel, current);
  }
  const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
  const bool address = unary && unary->getOpcode() == clang::UO_AddrOf;
  if (subscripts == rank) {
    if (!address || is_builtin_element_access(kernel, unary, element)) return {};
    return {"an element's address is taken", unary};
  }
  if (address) return {"its address is taken", unary};
  if (const auto* trait = llvm::dyn_cast_or_null<clang::UnaryExprOrTypeTraitExpr>(parent)) {
    return {trait->getKind() == clang::UETT_SizeOf ? "it is in sizeof" : "it is in a type trait",
            trait};
  }
  if (const auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(parent)) {
    for (const clang::Expr* argument : call->arguments()) {
      if (strips_to(argument, current)) return {"it is passed to a function", call};
    }
  }
  if (subscripts > 0) {
    return {"it is used with " + std::to_string(subscripts) + " of its " + std::to_string(rank) +
                " subscripts",
            current};
  }
  return {"it decays to a pointer", parent && llvm::isa<clang::Expr>(parent) ? parent : current};
}

std::vector<SharedArray> shared_arrays(const ParsedKernel& kernel) {
  std::vector<SharedArray> arrays;
  for (const clang::FunctionDecl* function : kernel.kernels()) {
    SharedFinder finder;
    finder.TraverseStmt(function->getBody());
    for (const clang::VarDecl* variable : finder.arrays) {
      SharedArray array;
      array.variable = variable;
      clang::QualType element = variable->getType();
      while (const clang::ArrayType* type = kernel.context().getAsArrayType(element)) {
        ++array.rank;
        element = type->getElementType();
        if (llvm::isa<clang::IncompleteArrayType>(type) && array.obstacle.empty()) {
          array.obstacle = "it is extern (dynamic shared memory): its extents are the launch's";
        }
      }
      array.obstacle_place = kernel.place(variable);
      if (array.obstacle.empty() && variable->hasExternalStorage()) {
        array.obstacle = "it is extern (dynamic shared memory): its extents are the launch's";
      }
      if (array.obstacle.empty() && array.rank < 2) {
        array.obstacle = "one-dimensional: its row length is not known";
      }
      // The last bracket of the declaration, where the padding goes.
      int written = 0;
      for (clang::TypeLoc type = variable->getTypeSourceInfo()->getTypeLoc();;) {
        const auto extent = type.getAsAdjusted<clang::ArrayTypeLoc>();
        if (!extent) break;
        ++written;
        array.last_extent = extent;
        type = extent.getElementLoc();
      }
      if (array.obstacle.empty() && written < array.rank) {
        array.obstacle = "its last extent is written in a type alias, not in its declaration";
      }
      if (array.obstacle.empty()) {
        const std::string macro = kernel.macro_name(array.last_extent.getRBracketLoc());
        if (!macro.empty() || array.last_extent.getLBracketLoc().isMacroID()) {
          array.obstacle =
              "it is declared through macro " +
              (macro.empty() ? kernel.macro_name(array.last_extent.getLBracketLoc()) : macro) +
              ", whose text cannot be edited for one array";
        }
      }
      for (const clang::DeclRefExpr* reference : finder.references) {
        if (!array.obstacle.empty()) break;
        if (reference->getDecl() != variable) continue;
        const Leak leak = layout_leak(kernel, reference, array.rank, element);
        if (leak.reason.empty()) continue;
        array.obstacle = leak.reason;
        array.obstacle_place = kernel.place(reference->getBeginLoc(), kernel.text(leak.use));
      }
      arrays.push_back(std::move(array));
    }
  }
  return arrays;
}

std::string name_of(const SharedArray& array) { return array.variable->getNameAsString(); }

class PadShared : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    std::string pads, leaves;
    std::vector<SourcePlace> padded, left;
    for (const SharedArray& array : shared_arrays(kernel)) {
      if (!knob.target.empty() && name_of(array) != knob.target) continue;
      if (array.obstacle.empty()) {
        pads += (pads.empty() ? "" : ", ") + name_of(array) + " (" +
                kernel.place(array.variable).str() + ")";
        padded.push_back(kernel.place(array.variable));
      } else {
        leaves += (leaves.empty() ? "" : "; ") + name_of(array) + ": " +
                  array.obstacle_place.str() + ": " + array.obstacle;
        left.push_back(array.obstacle_place);
      }
    }
    verdict.applies = !pads.empty();
    if (pads.empty() && leaves.empty()) {
      verdict.reason = knob.target.empty()
                           ? "no __shared__ array is declared in the kernels"
                           : "no __shared__ array named '" + knob.target + "' in the kernels";
    } else if (pads.empty()) {
      verdict.reason = leaves;
    } else {
      verdict.reason = "pads the last extent of " + pads;
      if (!leaves.empty()) verdict.reason += "; leaves " + leaves;
    }
    verdict.places = padded;
    verdict.places.insert(verdict.places.end(), left.begin(), left.end());
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override {
    return std::any_of(knobs.pad_shared.begin(), knobs.pad_shared.end(),
                       [](const auto& entry) { return entry.second != 0; });
  }

  std::string key(const SourceKnobs& knobs) const override {
    std::string key = "pad_shared=";
    for (const auto& [target, pad] : knobs.pad_shared) {
      key += target + ":" + std::to_string(pad) + ",";
    }
    return key;
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    const std::vector<SharedArray> arrays = shared_arrays(kernel);
    // Each array's padding: the one for every array first, an array's own after.
    std::vector<int> pads(arrays.size(), 0);
    std::vector<std::pair<std::string, int>> entries = knobs.pad_shared;
    std::stable_partition(entries.begin(), entries.end(),
                          [](const auto& entry) { return entry.first.empty(); });
    for (const auto& [target, pad] : entries) {
      const std::string knob = target.empty() ? kKnob : std::string(kKnob) + "(" + target + ")";
      if (pad < 0) {
        return {false, "",
                refusal({kernel.unit().file_name, 0, 0, ""}, knob,
                        "the padding must be 0 or more elements, not " + std::to_string(pad))};
      }
      bool named = false;
      for (size_t i = 0; i < arrays.size(); ++i) {
        if (!target.empty() && name_of(arrays[i]) != target) continue;
        if (!arrays[i].obstacle.empty()) {
          // The knob for every array pads those that allow it.
          if (target.empty() || pad == 0) continue;
          return {false, "", refusal(arrays[i].obstacle_place, knob, arrays[i].obstacle)};
        }
        named = true;
        pads[i] = pad;
      }
      if (!named && pad != 0) {
        return {false, "",
                refusal({kernel.unit().file_name, 0, 0, ""}, knob,
                        verdict(kernel, {kKnob, target}).reason)};
      }
    }
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    for (size_t i = 0; i < arrays.size(); ++i) {
      if (pads[i] == 0) continue;
      const clang::ArrayTypeLoc extent = arrays[i].last_extent;
      const clang::SourceLocation open = extent.getLBracketLoc().getLocWithOffset(1);
      const clang::CharSourceRange inside =
          clang::CharSourceRange::getCharRange(open, extent.getRBracketLoc());
      const std::string text =
          clang::Lexer::getSourceText(inside, kernel.sources(), kernel.language()).str();
      const size_t first = text.find_first_not_of(" \t\n");
      const size_t last = text.find_last_not_of(" \t\n");
      if (first == std::string::npos) continue;  // `[]`: extern, refused above
      const std::string written = text.substr(first, last - first + 1);
      const bool plain = std::all_of(written.begin(), written.end(),
                                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
      rewriter.ReplaceText(
          open.getLocWithOffset(static_cast<int>(first)), static_cast<unsigned>(written.size()),
          (plain ? written : "(" + written + ")") + " + " + std::to_string(pads[i]));
    }
    return {true, rewritten_source(kernel, rewriter), ""};
  }
};

const TransformationRegistrar kRegistrar{10, std::make_unique<PadShared>()};

}  // namespace
}  // namespace gputune::engine
