// vector_width: W neighbouring words of an array that a thread reads into registers one after
// another become one float2 / float4 read, where the alignment is provable.
// - A __shared__ array's row (thread merge's consecutive copies of a tile read, `float t1 =
//   tile[k][4 * threadIdx.x + 1];`): the array is declared in the kernel with a row length that
//   W divides, the first word's index is W times an integer (every coefficient and the constant
//   a multiple of W), and the declaration is aligned to the vector. W times fewer shared loads,
//   and the W-way bank conflicts of the consecutive layout are gone.
// - A pointer parameter (global memory: the method's pairs `in[2 * i]`, `in[2 * i + 1]`): the
//   first word's index W times an integer, and the pointer aligned to the vector, which only the
//   run time knows: the wide read runs where it is, the words one by one elsewhere.
// Rank 35: after thread merge, on the copies it wrote.
#include <clang/AST/Attr.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <map>
#include <optional>
#include <set>

#include "engine/call_facts.h"
#include "engine/stage_shared.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "vector_width";

// An integer expression as a sum of integer coefficients times opaque symbols (built-ins and
// variables by declaration); "" is the constant.
using Linear = std::map<std::string, long long>;

std::optional<Linear> linear(const ParsedKernel& kernel, const clang::Expr* expression) {
  expression = expression->IgnoreParens();
  if (!expression->getType()->isIntegralOrEnumerationType()) return std::nullopt;
  if (!expression->isValueDependent()) {
    clang::Expr::EvalResult result;
    if (expression->EvaluateAsInt(result, kernel.context())) {
      return Linear{{"", result.Val.getInt().getExtValue()}};
    }
  }
  if (const auto* cast = llvm::dyn_cast<clang::CastExpr>(expression)) {
    if (!cast->getSubExpr()->getType()->isIntegralOrEnumerationType()) return std::nullopt;
    return linear(kernel, cast->getSubExpr());
  }
  if (const auto component = kernel.builtin_component(expression)) {
    return Linear{{std::to_string(static_cast<int>(component->first)) + component->second, 1}};
  }
  if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expression)) {
    const auto* variable = llvm::dyn_cast<clang::VarDecl>(reference->getDecl());
    if (!variable) return std::nullopt;
    return Linear{{"v" + std::to_string(reinterpret_cast<uintptr_t>(variable)), 1}};
  }
  const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expression);
  if (!binary) return std::nullopt;
  const auto left = linear(kernel, binary->getLHS());
  const auto right = linear(kernel, binary->getRHS());
  if (!left || !right) return std::nullopt;
  const auto constant = [](const Linear& form) -> std::optional<long long> {
    if (form.empty()) return 0;
    if (form.size() == 1 && form.count("")) return form.at("");
    return std::nullopt;
  };
  Linear out = *left;
  switch (binary->getOpcode()) {
    case clang::BO_Add:
      for (const auto& [term, c] : *right) out[term] += c;
      return out;
    case clang::BO_Sub:
      for (const auto& [term, c] : *right) out[term] -= c;
      return out;
    case clang::BO_Mul: {
      const std::optional<long long> a = constant(*left), b = constant(*right);
      if (!a && !b) return std::nullopt;
      out = a ? *right : *left;
      for (auto& entry : out) entry.second *= a ? *a : *b;
      return out;
    }
    default:
      return std::nullopt;
  }
}

// A declaration `T v = array[...][last];` of one element of a __shared__ array declared in the
// kernel, or `T v = pointer[last];` of a pointer parameter's.
struct Read {
  const clang::DeclStmt* statement = nullptr;
  const clang::VarDecl* variable = nullptr;
  const clang::VarDecl* array = nullptr;
  const clang::Expr* last = nullptr;  // the last subscript
  std::string outer;                  // the text of the others, `[k - s]`
  Linear form;
  uint64_t row = 0;     // the last extent (a shared array's)
  bool global = false;  // through a pointer parameter
  std::string element;
};

std::optional<Read> read_of(const ParsedKernel& kernel, const clang::Stmt* node) {
  const auto* statement = llvm::dyn_cast<clang::DeclStmt>(node);
  if (!statement || !statement->isSingleDecl()) return std::nullopt;
  const auto* variable = llvm::dyn_cast<clang::VarDecl>(statement->getSingleDecl());
  if (!variable || !variable->getInit() || variable->getInitStyle() != clang::VarDecl::CInit) {
    return std::nullopt;
  }
  const auto* access =
      llvm::dyn_cast<clang::ArraySubscriptExpr>(variable->getInit()->IgnoreParenImpCasts());
  if (!access) return std::nullopt;
  Read read;
  read.statement = statement;
  read.variable = variable;
  read.last = access->getIdx();
  std::vector<const clang::Expr*> outer;
  const clang::Expr* base = access->getBase()->IgnoreParenImpCasts();
  while (const auto* inner = llvm::dyn_cast<clang::ArraySubscriptExpr>(base)) {
    outer.insert(outer.begin(), inner->getIdx());
    base = inner->getBase()->IgnoreParenImpCasts();
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(base);
  read.array = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  if (!read.array || !kernel.in_main_file(read.array->getLocation())) return std::nullopt;
  clang::QualType type = read.array->getType();
  read.global = llvm::isa<clang::ParmVarDecl>(read.array) && type->isPointerType() && outer.empty();
  if (read.global) {
    type = type->getPointeeType();
  } else {
    if (!read.array->hasAttr<clang::CUDASharedAttr>()) return std::nullopt;
    // Every subscript of the array, and its last extent.
    size_t rank = 0;
    while (const auto* array = kernel.context().getAsConstantArrayType(type)) {
      read.row = array->getSize().getZExtValue();
      type = array->getElementType();
      ++rank;
    }
    if (rank != outer.size() + 1) return std::nullopt;
  }
  const std::string element = type.getUnqualifiedType().getAsString();
  if (element == "float" || element == "int" || element == "unsigned int" || element == "double") {
    read.element = element;
  } else {
    return std::nullopt;
  }
  for (const clang::Expr* index : outer) read.outer += "[" + kernel.text(index) + "]";
  const std::optional<Linear> form = linear(kernel, read.last);
  if (!form || !kernel.file_range(read.last->getSourceRange()).isValid() ||
      !kernel.file_range(variable->getInit()->getSourceRange()).isValid()) {
    return std::nullopt;
  }
  read.form = *form;
  return read;
}

uint64_t vector_bytes(const std::string& element, int width) {
  return (element == "double" ? 8 : 4) * uint64_t(width);
}

std::string vector_type(const std::string& element, int width) {
  if (element == "unsigned int") return "uint" + std::to_string(width);
  return element + std::to_string(width);
}

// The groups of `width` reads found, or the first reason one is not aligned.
struct Groups {
  std::vector<std::vector<Read>> groups;
  std::string unaligned;
  SourcePlace place;
};

Groups find_groups(const ParsedKernel& kernel, int width) {
  Groups found;
  std::vector<const clang::CompoundStmt*> blocks;
  for (const clang::FunctionDecl* function : kernel.kernels()) {
    any_node(function->getBody(), [&](const clang::Stmt* node) {
      if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(node)) blocks.push_back(block);
      return false;
    });
  }
  for (const clang::CompoundStmt* block : blocks) {
    const std::vector<const clang::Stmt*> children(block->body_begin(), block->body_end());
    for (size_t i = 0; i + width <= children.size();) {
      std::vector<Read> group;
      for (int q = 0; q < width; ++q) {
        std::optional<Read> read = read_of(kernel, children[i + q]);
        if (!read) break;
        if (q > 0) {
          Linear step = read->form;
          for (const auto& [term, c] : group.front().form) step[term] -= c;
          bool neighbour = true;
          for (const auto& [term, c] : step) {
            neighbour = neighbour && c == (term.empty() ? q : 0);
          }
          if (!neighbour || read->array != group.front().array ||
              read->outer != group.front().outer || read->element != group.front().element) {
            break;
          }
        }
        group.push_back(std::move(*read));
      }
      if (static_cast<int>(group.size()) < width) {
        ++i;
        continue;
      }
      const Read& first = group.front();
      std::string why;
      for (const auto& [term, c] : first.form) {
        if (c % width != 0) {
          why = "the first word's index `" + kernel.text(first.last) + "` is not " +
                std::to_string(width) + " times an integer";
        }
      }
      if (!first.global && first.row % width != 0) {
        why = "the rows of " + first.array->getNameAsString() + " are " +
              std::to_string(first.row) + " elements (padded?), not a multiple of " +
              std::to_string(width);
      }
      if (first.element == "double" && width > 2) why = "a double4 is not one access";
      if (why.empty()) {
        found.groups.push_back(std::move(group));
        i += width;
        continue;
      }
      if (found.unaligned.empty()) {
        found.unaligned = why;
        found.place = kernel.original().place(first.array);
      }
      ++i;
    }
  }
  return found;
}

class VectorWidth : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = "vector_width takes no target";
      return verdict;
    }
    // The reads it widens are those the merges write: a kernel with a shared array of its
    // own, or one stage_shared gives it, may have them.
    bool shared = false;
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      shared = shared || any_node(function->getBody(), [](const clang::Stmt* node) {
                 const auto* statement = llvm::dyn_cast<clang::DeclStmt>(node);
                 if (!statement) return false;
                 for (const clang::Decl* decl : statement->decls()) {
                   if (decl->hasAttr<clang::CUDASharedAttr>()) return true;
                 }
                 return false;
               });
    }
    verdict.applies =
        shared || !stage_shared_tiles(kernel).empty() || !find_groups(kernel, 2).groups.empty();
    verdict.reason =
        verdict.applies
            ? "a thread's reads of 2 or 4 neighbouring words of a shared array's row (thread "
              "merge's consecutive copies of a tile read) or of a pointer parameter (`in[2 * i]`, "
              "`in[2 * i + 1]`) as one float2 / float4 read, where aligned; variants without "
              "such reads are refused"
            : "the kernel reads no neighbouring words of a pointer into registers one after "
              "another, and has no __shared__ array, nor one stage_shared would declare";
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override { return knobs.vector_width != 1; }

  std::string key(const SourceKnobs& knobs) const override {
    return "vector_width=" + std::to_string(knobs.vector_width);
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    const int width = knobs.vector_width;
    const SourcePlace file{kernel.unit().file_name, 0, 0, ""};
    if (width != 2 && width != 4) {
      return {
          false, "",
          refusal(file, kKnob, "expected 1 (as written), 2 or 4, not " + std::to_string(width))};
    }
    const Groups found = find_groups(kernel, width);
    if (found.groups.empty()) {
      if (!found.unaligned.empty())
        return {false, "", refusal(found.place, kKnob, found.unaligned)};
      return {false, "",
              refusal(kernel.original().place(kernel.original().kernels().front()), kKnob,
                      "no " + std::to_string(width) +
                          " neighbouring words of an array are read one after another into "
                          "registers (thread merge's consecutive copies of a tile read, with "
                          "merge_layout: consecutive and thread_merge_x a multiple of " +
                          std::to_string(width) + ", or a pointer's `p[2 * i]`, `p[2 * i + 1]`)")};
    }
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    std::set<const clang::VarDecl*> aligned;
    int next = 0;
    for (const std::vector<Read>& group : found.groups) {
      const Read& first = group.front();
      const std::string type = vector_type(first.element, width);
      const std::string name = "gputune_v" + std::to_string(next++);
      const std::string indent(
          kernel.sources().getExpansionColumnNumber(
              kernel.sources().getExpansionLoc(first.statement->getBeginLoc())) -
              1,
          ' ');
      const std::string wide = "*reinterpret_cast<const " + type + "*>(&" +
                               first.array->getNameAsString() + first.outer + "[" +
                               kernel.text(first.last) + "])";
      std::string value = wide;
      if (first.global) {
        // The words one by one where the pointer is not aligned to the vector.
        std::string words;
        for (const Read& read : group) {
          words += (words.empty() ? "" : ", ") + kernel.text(read.variable->getInit());
        }
        value = "reinterpret_cast<unsigned long long>(" + first.array->getNameAsString() + ") % " +
                std::to_string(vector_bytes(first.element, width)) + " == 0 ? " + wide + " : " +
                type + "{" + words + "}";
      }
      rewriter.InsertTextBefore(
          kernel.sources().getExpansionLoc(first.statement->getBeginLoc()),
          "const " + type + " " + name + " = " + value + ";  // vector_width\n" + indent);
      for (int q = 0; q < width; ++q) {
        rewriter.ReplaceText(kernel.file_range(group[q].variable->getInit()->getSourceRange()),
                             name + "." + std::string(1, "xyzw"[q]));
      }
      if (!first.global && aligned.insert(first.array).second) {
        rewriter.InsertTextBefore(kernel.sources().getExpansionLoc(first.array->getBeginLoc()),
                                  "__attribute__((aligned(" +
                                      std::to_string(vector_bytes(first.element, width)) + "))) ");
      }
    }
    return {true, rewritten_source(kernel, rewriter), ""};
  }
};

const TransformationRegistrar kRegistrar{35, std::make_unique<VectorWidth>()};

}  // namespace
}  // namespace gputune::engine
