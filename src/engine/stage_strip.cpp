// stage_shared in a loop, the pieces of a strip: the tile's cooperative load as block-level code
// written for the launched block (after thread and block merges), and whether the loop's body
// may run for every thread without the condition around the loop.
#include <clang/AST/Expr.h>

#include <functional>

#include "engine/call_facts.h"
#include "engine/stage_shared.h"

namespace gputune::engine {

uint32_t TileLoad::trips() const {
  const uint32_t threads = physical[0] * physical[1];
  return (rows * columns + threads - 1) / threads;
}

std::string tile_load_text(const TileLoad& load, LoadMode mode, const std::string& strip,
                           const std::string& in) {
  const uint32_t threads = load.physical[0] * load.physical[1];
  const uint32_t words = load.rows * load.columns;
  const std::string columns = std::to_string(load.columns);
  const std::string linear =
      load.physical[1] == 1
          ? "threadIdx.x"
          : "threadIdx.x + " + std::to_string(load.physical[0]) + " * threadIdx.y";
  const std::string in2 = in + "  ", in3 = in + "    ";
  const std::string what = mode == LoadMode::kTile        ? "load the strip's "
                           : mode == LoadMode::kRegisters ? "load into registers the strip's "
                                                          : "store from registers the strip's ";
  std::string text =
      "{  // stage_shared: the block's " + std::to_string(threads) + " threads " + what +
      std::to_string(load.rows) + " x " + columns + " words of " + load.array + " (" +
      std::to_string(load.trips()) + " each), neighbouring threads on neighbouring words" +
      (mode == LoadMode::kFromRegisters ? "" : ", zero outside " + load.array) + "\n";
  text += in2 + "const int " + kBlockThread + " = " + linear + ";\n";
  if (mode != LoadMode::kFromRegisters) text += in2 + "const int gputune_strip = " + strip + ";\n";
  text += in2 + "#pragma unroll\n";
  text += in2 + "for (int gputune_r = 0; gputune_r < " + std::to_string(load.trips()) +
          "; ++gputune_r) {\n";
  text += in3 + "const int gputune_w = " + kBlockThread + " + " + std::to_string(threads) +
          " * gputune_r;\n";
  std::string store_in = in3;
  if (words % threads != 0) {
    text += in3 + "if (gputune_w < " + std::to_string(words) + ") {\n";
    store_in += "  ";
  }
  const std::string value =
      load.guard + " ? " + load.array + "[" + load.index + "] : " + load.element + "()";
  text += store_in + "const int " + load.row + " = gputune_w / " + columns + ";\n";
  text += store_in + "const int " + load.column + " = gputune_w % " + columns + ";\n";
  if (mode == LoadMode::kRegisters) {
    text += store_in + load.registers + "[gputune_r] = " + value + ";\n";
  } else {
    text += store_in + load.tile + "[" + load.row + "][" + load.column +
            "] = " + (mode == LoadMode::kTile ? value : load.registers + "[gputune_r]") + ";\n";
  }
  if (words % threads != 0) text += in3 + "}\n";
  text += in2 + "}\n" + in + "}";
  return text;
}

bool runs_unguarded(const ParsedKernel& kernel, const std::vector<Access>& all,
                    const std::vector<const Access*>& staged, const clang::IfStmt* guard,
                    const clang::Stmt* body) {
  const CallFacts facts(kernel, "stage_shared");
  const clang::SourceManager& sources = kernel.sources();
  const clang::SourceRange inside = guard->getThen()->getSourceRange();
  const auto declared_inside = [&](const clang::VarDecl* variable) {
    const clang::SourceLocation at = sources.getExpansionLoc(variable->getLocation());
    return !sources.isBeforeInTranslationUnit(at, sources.getExpansionLoc(inside.getBegin())) &&
           !sources.isBeforeInTranslationUnit(sources.getExpansionLoc(inside.getEnd()), at);
  };
  // Whether a node may do what the naive threads outside the condition must not.
  std::function<bool(const clang::Stmt*)> unsafe = [&](const clang::Stmt* node) {
    if (!node) return false;
    for (const Access& access : all) {
      if (access.expression != node) continue;
      // An affine index reads no memory: the access is all there is to look at.
      for (const Access* tile : staged) {
        if (tile->expression == node) return false;
      }
      if (access.write) return true;
      for (const std::optional<Affine>& index : access.indices) {
        if (!index || index->has_id_term()) return true;
      }
      return false;
    }
    if (llvm::isa<clang::ArraySubscriptExpr>(node)) return true;  // memory of unknown extent
    if (const auto* op = llvm::dyn_cast<clang::UnaryOperator>(node)) {
      if (op->getOpcode() == clang::UO_Deref) return true;
    }
    if (const clang::Expr* target = assigned_target(node)) {
      const clang::VarDecl* root = storage_root(target);
      if (!root || !root->hasLocalStorage() || !declared_inside(root)) return true;
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(node)) {
      if (facts.kind(call) != CallKind::kPure) return true;
    }
    if (const auto* op = llvm::dyn_cast<clang::BinaryOperator>(node)) {
      const clang::BinaryOperatorKind kind = op->getOpcode();
      if ((kind == clang::BO_Div || kind == clang::BO_Rem || kind == clang::BO_DivAssign ||
           kind == clang::BO_RemAssign) &&
          op->getType()->isIntegerType()) {
        return true;
      }
    }
    for (const clang::Stmt* child : node->children()) {
      if (unsafe(child)) return true;
    }
    return false;
  };
  return !unsafe(body);
}

}  // namespace gputune::engine
