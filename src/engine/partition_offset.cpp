// partition_offset: the method's partition-camping fix for 1-D grids. An access whose stride
// between neighbouring blocks (its blockIdx.x coefficient times the element size) is a multiple
// of the memory partitions' span sends every block's first words to one partition; where it
// walks its words in a loop, each block starts the loop at an offset of its own, one partition
// per block, and wraps around: `for (j = S; j < E; ++j)` runs `j = S + (r + offset) % (E - S)`
// for r in 0..E-S. The 2-D grids' counterpart is block_order's diagonal order. Rank 45: after
// the merges and unrolling, on the loops as they stand then.
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <set>

#include "engine/access_analysis.h"
#include "engine/call_facts.h"
#include "engine/stage_shared.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "partition_offset";
// The method's memory partitions: 8 of 256 bytes. A block stride that is a multiple of their
// span (2 KiB) puts every block's words of one iteration in the same partition.
constexpr long long kPartitionBytes = 256, kPartitions = 8;

// A loop to rotate: the innermost loop around a camping access, as written.
struct Rotation {
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* iterator = nullptr;
  const clang::Expr* start = nullptr;
  const clang::Expr* end = nullptr;
  uint32_t element_bytes = 0;
  std::string access;  // "A[(size_t)row * n + j], blocks 4*blockDim.x*n bytes apart"
};

struct Found {
  std::vector<Rotation> rotations;
  std::string why_not;  // where there are none
  SourcePlace place;    // what the reason names
};

// Whether the kernel tells blocks apart along y or z (a grid of more than one dimension).
std::optional<char> higher_grid_dimension(const ParsedKernel& kernel,
                                          const clang::FunctionDecl* function) {
  std::optional<char> found;
  any_node(function->getBody(), [&](const clang::Stmt* node) {
    const auto* expression = llvm::dyn_cast<clang::Expr>(node);
    if (!expression) return false;
    const auto component = kernel.builtin_component(expression);
    if (component && component->first == Builtin::kBlockIdx && component->second != 'x') {
      found = component->second;
      return true;
    }
    return false;
  });
  return found;
}

// The stride between neighbouring blocks in bytes where it is, or may be (a product with a
// parameter or blockDim), a multiple of the partitions' span; "" where it cannot be.
std::string camping_stride(const Access& access, uint32_t element_bytes) {
  const Poly stride = access.indices[0]->coefficient("blockIdx.x");
  if (stride.empty() || element_bytes == 0) return "";
  Poly bytes;
  for (const auto& [monomial, coefficient] : stride) bytes[monomial] = coefficient * element_bytes;
  if (bytes.size() == 1 && bytes.begin()->first.empty()) {
    const long long constant = bytes.begin()->second;
    if (constant == 0 || constant % (kPartitionBytes * kPartitions) != 0) return "";
  }
  return poly_text(bytes);
}

// Why the loop's iterations cannot run in another order, "" where they can: the loop must be a
// counted `for (v = S; v < E; ++v)`, write no global memory, and its body assign the variables
// declared outside it only by `+=` or `-=` (a sum, whatever its order).
std::string order_obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                           const Rotation& rotation) {
  const clang::ForStmt* loop = rotation.loop;
  for (const Access& other : all) {
    if (!other.write) continue;
    for (const clang::Stmt* around : other.loops) {
      if (around == loop) return "it writes global memory (" + kernel.text(other.expression) + ")";
    }
  }
  std::string why;
  const clang::Stmt* body = loop->getBody();
  any_node(body, [&](const clang::Stmt* node) {
    if (llvm::isa<clang::BreakStmt, clang::ReturnStmt, clang::GotoStmt>(node)) {
      why = "it leaves the loop early (`" + kernel.text(node) + "`)";
      return true;
    }
    const clang::Expr* target = assigned_target(node);
    if (!target) return false;
    const clang::VarDecl* variable = storage_root(target);
    const clang::SourceManager& sources = kernel.sources();
    if (variable &&
        sources.isBeforeInTranslationUnit(body->getBeginLoc(), variable->getLocation()) &&
        sources.isBeforeInTranslationUnit(variable->getLocation(), body->getEndLoc())) {
      return false;  // a variable of the body itself
    }
    const auto* compound = llvm::dyn_cast<clang::CompoundAssignOperator>(node);
    const bool sum = compound && (compound->getOpcode() == clang::BO_AddAssign ||
                                  compound->getOpcode() == clang::BO_SubAssign);
    if (!variable || !sum) {
      why = "its iterations depend on their order (`" + kernel.text(node) + "`)";
      return true;
    }
    return false;
  });
  return why;
}

// The loop's header as the rotation needs it: `for (T v = S; v < E; ++v)`.
bool counted_header(const Access& access, Rotation* rotation) {
  const auto* loop = llvm::dyn_cast<clang::ForStmt>(access.loops.back());
  if (!loop) return false;
  const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
  if (!init || !init->isSingleDecl()) return false;
  const auto* iterator = llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl());
  if (!iterator || !iterator->getInit() || !iterator->getType()->isIntegerType()) return false;
  const auto* condition = llvm::dyn_cast_or_null<clang::BinaryOperator>(loop->getCond());
  if (!condition || condition->getOpcode() != clang::BO_LT) return false;
  const auto* left = llvm::dyn_cast<clang::DeclRefExpr>(condition->getLHS()->IgnoreImpCasts());
  if (!left || left->getDecl() != iterator) return false;
  const clang::Expr* increment = loop->getInc();
  bool step_one = false;
  if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(increment)) {
    step_one = unary->isIncrementOp();
  } else if (const auto* add = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(increment)) {
    const auto* one = llvm::dyn_cast<clang::IntegerLiteral>(add->getRHS()->IgnoreImpCasts());
    step_one = add->getOpcode() == clang::BO_AddAssign && one && one->getValue() == 1;
  }
  const LoopFacts& facts = access.loop_facts.back();
  // The facts say the iterator is left alone in the body and the bounds are affine.
  if (!step_one || facts.iterator != iterator || !facts.condition) return false;
  rotation->loop = loop;
  rotation->iterator = iterator;
  rotation->start = iterator->getInit();
  rotation->end = condition->getRHS();
  return true;
}

Found find_rotations(const ParsedKernel& kernel) {
  Found found;
  for (const clang::FunctionDecl* function : kernel.kernels()) {
    if (const std::optional<char> dim = higher_grid_dimension(kernel, function)) {
      found.why_not = "the grid is not one-dimensional: the kernel reads blockIdx." +
                      std::string(1, *dim) +
                      " (a 2-D grid's blocks take block_order's diagonal order instead)";
      found.place = kernel.place(function);
      return found;
    }
  }
  const std::vector<Access> all = find_accesses(kernel);
  std::set<const clang::Stmt*> taken;
  for (const Access& access : all) {
    if (access.indices.size() != 1 || !access.indices[0] || access.loops.empty()) continue;
    const std::string count = access.loop_facts.back().iterator
                                  ? access.loop_facts.back().iterator->getNameAsString()
                                  : "";
    // The loop walks the access's words one by one.
    if (count.empty() || !is_one(access.indices[0]->coefficient(count))) continue;
    const uint32_t bytes = element_bytes(kernel, access);
    const std::string stride = camping_stride(access, bytes);
    if (stride.empty() || taken.count(access.loops.back())) continue;
    Rotation rotation;
    rotation.element_bytes = bytes;
    rotation.access = kernel.text(access.expression) + ", blocks " + stride + " bytes apart";
    if (!counted_header(access, &rotation)) {
      found.why_not = "the loop around " + kernel.text(access.expression) +
                      " is not `for (v = S; v < E; ++v)` with v left alone in its body";
      found.place = kernel.place(access.loops.back());
      return {{}, found.why_not, found.place};
    }
    if (const std::string why = order_obstacle(kernel, all, rotation); !why.empty()) {
      return {{},
              "the loop around " + kernel.text(access.expression) + " cannot run from " +
                  "another start: " + why,
              kernel.place(access.loops.back())};
    }
    if (kernel.file_range(rotation.loop->getSourceRange()).isInvalid()) {
      return {{},
              "the loop around " + kernel.text(access.expression) + " is written in a macro",
              kernel.place(access.loops.back())};
    }
    taken.insert(access.loops.back());
    found.rotations.push_back(rotation);
  }
  if (found.rotations.empty() && found.why_not.empty()) {
    found.why_not =
        "no global access in a loop that walks its words strides between "
        "neighbouring blocks by a multiple of the memory partitions' span (" +
        std::to_string(kPartitions) + " x " + std::to_string(kPartitionBytes) + " bytes)";
  }
  return found;
}

class PartitionOffset : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = "partition_offset takes no target";
      return verdict;
    }
    const Found found = find_rotations(kernel);
    if (found.rotations.empty()) {
      verdict.reason = found.why_not;
      if (found.place.line > 0) verdict.places.push_back(found.place);
      return verdict;
    }
    verdict.applies = true;
    verdict.reason = "each block starts a partition further into the loop around";
    for (const Rotation& rotation : found.rotations) {
      verdict.reason += " " + rotation.access + ";";
      verdict.places.push_back(kernel.place(rotation.loop));
    }
    verdict.reason.pop_back();
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override { return knobs.partition_offset > 0; }

  std::string key(const SourceKnobs& knobs) const override {
    return "partition_offset=" + std::to_string(knobs.partition_offset);
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs&) const override {
    const Found found = find_rotations(kernel);
    if (found.rotations.empty()) {
      return {false, "", refusal(found.place, kKnob, found.why_not)};
    }
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    for (const Rotation& r : found.rotations) {
      const std::string start = "(" + kernel.text(r.start) + ")";
      const std::string end = "(" + kernel.text(r.end) + ")";
      const std::string trip = "((long long)" + end + " - " + start + ")";
      const std::string type = r.iterator->getType().getAsString();
      const std::string words = std::to_string(kPartitionBytes / r.element_bytes);
      rewriter.ReplaceText(kernel.file_range({r.loop->getLParenLoc().getLocWithOffset(1),
                                              r.loop->getRParenLoc().getLocWithOffset(-1)}),
                           "long long gputune_r = 0; gputune_r < " + trip + "; ++gputune_r");
      const std::string declaration =
          "const " + type + " " + r.iterator->getNameAsString() + " = " + start + " + (" + type +
          ")((gputune_r + (long long)blockIdx.x * " + words + ") % " + trip +
          ");  // partition_offset: block b starts " + words + "*b words in";
      const clang::Stmt* body = r.loop->getBody();
      if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(body)) {
        const std::string indent =
            block->body_empty() ? "  " : indentation(kernel, *block->body_begin());
        rewriter.InsertTextAfterToken(block->getLBracLoc(), "\n" + indent + declaration);
      } else {
        rewriter.InsertTextBefore(kernel.sources().getExpansionLoc(body->getBeginLoc()),
                                  "{ " + declaration + "\n" + indentation(kernel, r.loop) + "  ");
        rewriter.InsertTextAfter(after(kernel, body), " }");
      }
    }
    return {true, rewritten_source(kernel, rewriter), ""};
  }
};

const TransformationRegistrar kRegistrar{45, std::make_unique<PartitionOffset>()};

}  // namespace
}  // namespace gputune::engine
