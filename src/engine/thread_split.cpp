// thread_split_x: the inverse of thread merge. S neighbouring threads along x (S a power of two
// dividing 32, so they share a warp) do the work of one logical thread: threadIdx.x reads as
// threadIdx.x / S and blockDim.x as blockDim.x / S; each counted loop that accumulates into
// locals (`acc += e`, `acc -= e`, `acc = acc + e`) runs every S-th iteration in each lane,
// and the lanes' partial sums are added with __shfl_xor_sync over the group's lanes right after
// it, so every lane holds the whole sum. Outside those loops every lane runs the logical
// thread's code and holds the same values; statements that write memory run in lane 0 only.
// The launch's block grows S times along x; the spec writes it (docs/engine.md).
#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <set>

#include "engine/access_analysis.h"
#include "engine/index_dependence.h"
#include "engine/merge_text.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "thread_split_x";

// A counted loop split across the lanes.
struct Reduction {
  const clang::ForStmt* loop = nullptr;
  const clang::Stmt* outer = nullptr;  // the loop, or the label or #pragma around it
  bool in_compound = false;            // `outer` is a statement of a { } block
  const clang::VarDecl* iterator = nullptr;
  long long step = 0;
  std::vector<const clang::VarDecl*> accumulators;
};

// A statement that writes memory outside the split loops: it runs in lane 0 only.
struct Store {
  const clang::Stmt* statement = nullptr;
  bool in_compound = false;
};

bool is_accumulator_type(clang::QualType type) {
  const auto* builtin = type.getCanonicalType()->getAs<clang::BuiltinType>();
  if (!builtin) return false;
  switch (builtin->getKind()) {
    case clang::BuiltinType::Float:
    case clang::BuiltinType::Double:
    case clang::BuiltinType::Int:
    case clang::BuiltinType::UInt:
    case clang::BuiltinType::Long:
    case clang::BuiltinType::ULong:
    case clang::BuiltinType::LongLong:
    case clang::BuiltinType::ULongLong:
      return true;
    default:
      return false;
  }
}

const clang::VarDecl* variable_of(const clang::Expr* expr) {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  return reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
}

// The analysis of one kernel: its split loops and its stores, or a MergeRefusal.
class SplitAnalysis {
 public:
  SplitAnalysis(const ParsedKernel& kernel, const CallFacts& facts,
                const IndexDependence& dependence, const clang::FunctionDecl& function)
      : kernel_(kernel), facts_(facts), dep_(dependence) {
    const clang::Stmt* body = function.getBody();
    if (facts.has_barrier(body)) {
      refuse(facts.first_barrier(body),
             "__syncthreads(): the lanes of a logical thread run its split loops' iterations "
             "apart, and the engine does not split kernels with barriers");
    }
    any_node(body, [&](const clang::Stmt* node) {
      const auto* declarations = llvm::dyn_cast<clang::DeclStmt>(node);
      if (!declarations) return false;
      for (const clang::Decl* declaration : declarations->decls()) {
        const auto* variable = llvm::dyn_cast<clang::VarDecl>(declaration);
        if (variable && variable->hasAttr<clang::CUDASharedAttr>()) {
          refuse(node,
                 "__shared__ variable '" + variable->getNameAsString() +
                     "': the lanes of a logical thread would share what one thread kept to itself");
        }
      }
      return false;
    });
    walk(body, true, nullptr);
    if (reductions.empty()) {
      throw MergeRefusal{refusal(kernel.place(&function), kKnob,
                                 "kernel '" + function.getNameAsString() +
                                     "' has no counted loop that accumulates into a local "
                                     "declared before it (`acc += ...`): nothing to split")};
    }
    check_written_arrays(function);
  }

  std::vector<Reduction> reductions;
  std::vector<Store> stores;

 private:
  const ParsedKernel& kernel_;
  const CallFacts& facts_;
  const IndexDependence& dep_;

  [[noreturn]] void refuse(const clang::Stmt* at, const std::string& what) const {
    throw MergeRefusal{refusal(kernel_.place(at), kKnob, what)};
  }

  // The first node under `node` that writes memory or calls something with an effect.
  const clang::Stmt* memory_write(const clang::Stmt* node) const {
    const clang::Stmt* found = nullptr;
    any_node(node, [&](const clang::Stmt* n) {
      const clang::Expr* target = assigned_target(n);
      const auto* call = llvm::dyn_cast<clang::CallExpr>(n);
      if ((target && dep_.in_memory(target)) || (call && facts_.kind(call) >= CallKind::kEffect)) {
        found = n;
      }
      return found != nullptr;
    });
    return found;
  }

  void no_write_in(const clang::Stmt* node) const {
    if (const clang::Stmt* write = memory_write(node)) {
      refuse(write,
             "writes memory where the split cannot keep it to lane 0 (a declaration, a condition "
             "or a loop's header)");
    }
  }

  // The locals declared outside `loop` that it assigns.
  std::set<const clang::VarDecl*> assigned_outside(const clang::Stmt* loop) const {
    std::set<const clang::VarDecl*> inner, assigned;
    any_node(loop, [&](const clang::Stmt* node) {
      if (const auto* declarations = llvm::dyn_cast<clang::DeclStmt>(node)) {
        for (const clang::Decl* declaration : declarations->decls()) {
          if (const auto* v = llvm::dyn_cast<clang::VarDecl>(declaration)) inner.insert(v);
        }
      }
      if (const clang::Expr* target = assigned_target(node)) {
        if (const clang::VarDecl* root = storage_root(target); root && dep_.is_private(root)) {
          assigned.insert(root);
        }
      }
      return false;
    });
    for (const clang::VarDecl* v : inner) assigned.erase(v);
    return assigned;
  }

  void walk(const clang::Stmt* node, bool in_compound, const clang::Stmt* wrapper) {
    if (!node) return;
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(node)) {
      for (const clang::Stmt* child : block->body()) walk(child, true, nullptr);
      return;
    }
    if (const auto* label = llvm::dyn_cast<clang::LabelStmt>(node)) {
      walk(label->getSubStmt(), in_compound, wrapper ? wrapper : node);
      return;
    }
    if (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(node)) {
      walk(attributed->getSubStmt(), in_compound, wrapper ? wrapper : node);
      return;
    }
    if (is_loop(node)) {
      const std::set<const clang::VarDecl*> assigned = assigned_outside(node);
      if (!assigned.empty()) {
        reduction(node, assigned, in_compound, wrapper ? wrapper : node);
        return;
      }
      for (const clang::Stmt* child : node->children()) {
        if (child && child != loop_body(node)) no_write_in(child);
      }
      walk(loop_body(node), false, nullptr);
      return;
    }
    if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(node)) {
      no_write_in(branch->getInit());
      no_write_in(branch->getCond());
      walk(branch->getThen(), false, nullptr);
      walk(branch->getElse(), false, nullptr);
      return;
    }
    if (llvm::isa<clang::Expr>(node)) {
      if (memory_write(node)) stores.push_back({wrapper ? wrapper : node, in_compound});
      return;
    }
    if (llvm::isa<clang::DeclStmt, clang::ReturnStmt, clang::SwitchStmt>(node)) {
      no_write_in(node);
      return;
    }
    for (const clang::Stmt* child : node->children()) walk(child, false, nullptr);
  }

  static const clang::Stmt* loop_body(const clang::Stmt* loop) {
    if (const auto* f = llvm::dyn_cast<clang::ForStmt>(loop)) return f->getBody();
    if (const auto* w = llvm::dyn_cast<clang::WhileStmt>(loop)) return w->getBody();
    return llvm::cast<clang::DoStmt>(loop)->getBody();
  }

  // Whether `node` accumulates into `variable`: `v += e`, `v -= e`, `v = v + e`, `v = e + v`,
  // `v = v - e`; the references to v that it may hold go to `allowed`.
  static bool accumulation(const clang::Stmt* node, const clang::VarDecl* variable,
                           std::set<const clang::Expr*>& allowed) {
    const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(node);
    if (!binary || variable_of(binary->getLHS()) != variable ||
        !llvm::isa<clang::DeclRefExpr>(binary->getLHS()->IgnoreParens())) {
      return false;
    }
    const clang::Expr* lhs = binary->getLHS()->IgnoreParens();
    if (binary->getOpcode() == clang::BO_AddAssign || binary->getOpcode() == clang::BO_SubAssign) {
      allowed.insert(lhs);
      return true;
    }
    if (binary->getOpcode() != clang::BO_Assign) return false;
    const auto* sum =
        llvm::dyn_cast<clang::BinaryOperator>(binary->getRHS()->IgnoreParenImpCasts());
    if (!sum) return false;
    const clang::Expr* left = sum->getLHS()->IgnoreParenImpCasts();
    const clang::Expr* right = sum->getRHS()->IgnoreParenImpCasts();
    const clang::Expr* own = nullptr;
    if (sum->getOpcode() == clang::BO_Add || sum->getOpcode() == clang::BO_Sub) {
      if (variable_of(left) == variable) own = left;
    }
    if (!own && sum->getOpcode() == clang::BO_Add && variable_of(right) == variable) own = right;
    if (!own) return false;
    allowed.insert(lhs);
    allowed.insert(own);
    return true;
  }

  void reduction(const clang::Stmt* node, const std::set<const clang::VarDecl*>& assigned,
                 bool in_compound, const clang::Stmt* outer) {
    std::set<std::string> sorted;
    for (const clang::VarDecl* variable : assigned) sorted.insert(variable->getNameAsString());
    std::string names;
    for (const std::string& name : sorted) names += (names.empty() ? "'" : ", '") + name + "'";
    const auto* loop = llvm::dyn_cast<clang::ForStmt>(node);
    if (!loop) {
      refuse(node, "the loop assigns " + names +
                       ", declared before it, and is not a counted for loop: the engine splits "
                       "only `for (int j = start; j < bound; j += step)`");
    }
    Reduction found;
    found.loop = loop;
    found.outer = outer;
    found.in_compound = in_compound;
    // The iterator: declared in the loop's init, stepped by a constant, compared with a bound.
    const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
    found.iterator = init && init->isSingleDecl()
                         ? llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl())
                         : nullptr;
    if (!found.iterator || !found.iterator->getInit() ||
        !found.iterator->getType()->isIntegerType()) {
      refuse(node,
             "not a counted loop: the engine splits loops whose integer iterator is "
             "declared in their init (`for (int j = start; ...)`)");
    }
    const clang::Stmt* increment = loop->getInc();
    if (increment && variable_of_target(increment) == found.iterator) {
      if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(increment)) {
        found.step = unary->isIncrementOp() ? 1 : -1;
      } else if (const auto* compound = llvm::dyn_cast<clang::CompoundAssignOperator>(increment)) {
        clang::Expr::EvalResult result;
        const bool constant = compound->getRHS()->EvaluateAsInt(result, kernel_.context());
        const long long value = constant ? result.Val.getInt().getExtValue() : 0;
        if (compound->getOpcode() == clang::BO_AddAssign) found.step = value;
        if (compound->getOpcode() == clang::BO_SubAssign) found.step = -value;
      }
    }
    if (found.step == 0) {
      refuse(node,
             "not a counted loop: the engine splits loops stepped by a constant "
             "(`++j`, `j += 4`)");
    }
    const auto* condition = llvm::dyn_cast_or_null<clang::BinaryOperator>(
        loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
    bool bounded = false;
    if (condition) {
      clang::BinaryOperatorKind op = condition->getOpcode();
      const clang::Expr* bound = condition->getRHS();
      if (variable_of(condition->getRHS()) == found.iterator) {
        op = clang::BinaryOperator::reverseComparisonOp(op);
        bound = condition->getLHS();
      } else if (variable_of(condition->getLHS()) != found.iterator) {
        bound = nullptr;
      }
      const bool upward = op == clang::BO_LT || op == clang::BO_LE;
      const bool downward = op == clang::BO_GT || op == clang::BO_GE;
      bounded = bound && ((upward && found.step > 0) || (downward && found.step < 0)) &&
                !any_node(bound, [&](const clang::Stmt* n) {
                  const auto* e = llvm::dyn_cast<clang::Expr>(n);
                  return e && variable_of(e) == found.iterator;
                });
    }
    if (!bounded) {
      refuse(node,
             "not a counted loop: the engine splits loops whose condition compares the "
             "iterator with a bound in the direction of its step (`j < n` with `++j`)");
    }
    if (const clang::Stmt* write = memory_write(loop)) {
      refuse(write, "writes memory in the loop that accumulates into " + names +
                        ": the engine splits only loops whose statements have no effect but "
                        "the accumulation");
    }
    any_node(loop->getBody(), [&](const clang::Stmt* n) {
      if (llvm::isa<clang::BreakStmt, clang::ReturnStmt, clang::GotoStmt>(n)) {
        refuse(n, "leaves the loop that accumulates into " + names +
                      " early: which iterations run would depend on their order");
      }
      const clang::Expr* target = assigned_target(n);
      if (target && storage_root(target) == found.iterator) {
        refuse(n, "assigns the loop's iterator in its body: not a counted loop");
      }
      return false;
    });
    // The accumulators: assigned only by their accumulation, read nowhere else in the loop.
    std::set<const clang::Expr*> allowed;
    for (const clang::VarDecl* variable : assigned) {
      any_node(loop, [&](const clang::Stmt* n) {
        const clang::Expr* target = assigned_target(n);
        if (!target || storage_root(target) != variable) return false;
        if (!accumulation(n, variable, allowed)) {
          refuse(n, "'" + variable->getNameAsString() +
                        "' is declared before the loop and assigned in it other than by "
                        "`+=`, `-=` or `= " +
                        variable->getNameAsString() +
                        " + ...`: the lanes would each keep their own");
        }
        return false;
      });
      if (!is_accumulator_type(variable->getType())) {
        refuse(loop, "accumulator '" + variable->getNameAsString() +
                         "' is not an int, unsigned, long, long long, float or double, which "
                         "__shfl_xor_sync combines");
      }
      found.accumulators.push_back(variable);
    }
    any_node(loop, [&](const clang::Stmt* n) {
      const auto* e = llvm::dyn_cast<clang::DeclRefExpr>(n);
      if (!e || allowed.count(e) || !assigned.count(variable_of(e))) return false;
      refuse(n, "'" + variable_of(e)->getNameAsString() +
                    "' is read in the loop other than by its own accumulation: each lane holds "
                    "only a part of it until the loop ends");
    });
    reductions.push_back(found);
  }

  static const clang::VarDecl* variable_of_target(const clang::Stmt* node) {
    const clang::Expr* target = assigned_target(node);
    return target ? variable_of(target) : nullptr;
  }

  // Lane 0 alone writes: an array the kernel reads outside those stores could be read by a
  // lane after lane 0 wrote it.
  void check_written_arrays(const clang::FunctionDecl& function) const {
    std::vector<Access> accesses;
    for (Access& access : find_accesses(kernel_)) {
      if (access.kernel == &function) accesses.push_back(std::move(access));
    }
    auto in_store = [&](const clang::Expr* expr) {
      const unsigned at =
          kernel_.sources().getFileOffset(kernel_.sources().getExpansionLoc(expr->getBeginLoc()));
      for (const Store& store : stores) {
        const clang::SourceRange range = store.statement->getSourceRange();
        const unsigned begin =
            kernel_.sources().getFileOffset(kernel_.sources().getExpansionLoc(range.getBegin()));
        const unsigned end =
            kernel_.sources().getFileOffset(kernel_.sources().getExpansionLoc(range.getEnd()));
        if (begin <= at && at <= end) return true;
      }
      return false;
    };
    for (const Access& write : accesses) {
      if (!write.write) continue;
      for (const Access& read : accesses) {
        if (!read.read || read.array_variable != write.array_variable || in_store(read.expression))
          continue;
        refuse(read.expression, "'" + read.array + "' is read here and written at line " +
                                    std::to_string(kernel_.place(write.expression).line) +
                                    ": lane 0 alone writes it, and another lane could read it "
                                    "after that write");
      }
    }
  }
};

// The edits of the split: threadIdx.x and blockDim.x of the logical thread.
class SplitRules : public EditRules {
 public:
  explicit SplitRules(int lanes) : lanes_(std::to_string(lanes)) {}
  std::optional<std::string> builtin(Builtin builtin, char component) const override {
    if (component != 'x') return std::nullopt;
    if (builtin == Builtin::kThreadIdx) return "(threadIdx.x / " + lanes_ + ")";
    if (builtin == Builtin::kBlockDim) return "(blockDim.x / " + lanes_ + ")";
    return std::nullopt;
  }

 private:
  std::string lanes_;
};

// The group's lanes within the warp: S consecutive lanes from a multiple of S.
std::string lane_mask(int lanes) {
  if (lanes == 32) return "0xffffffffu";
  char low[16];
  std::snprintf(low, sizeof low, "0x%xu", (1u << lanes) - 1u);
  const std::string s = std::to_string(lanes);
  return "(" + std::string(low) +
         " << ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u / " + s +
         "u * " + s + "u))";
}

struct Outcome {
  Rewrite rewrite;
  int loops = 0, stores = 0;
  std::vector<const clang::Stmt*> places;
};

Outcome split(const ParsedKernel& kernel, const SourceKnobs& knobs) {
  Outcome outcome;
  const int lanes = knobs.thread_split_x;
  if (lanes < 1 || lanes > 32 || 32 % lanes != 0) {
    outcome.rewrite = {false, "",
                       std::string(kKnob) + ": " + std::to_string(lanes) +
                           " lanes do not divide a warp; expected 1, 2, 4, 8, 16 or 32"};
    return outcome;
  }
  try {
    KernelText text(kernel, kKnob);
    const CallFacts facts(kernel, kKnob);
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    const clang::SourceLocation file_start =
        kernel.sources().getLocForStartOfFile(kernel.main_file());
    auto at = [&](unsigned offset) { return file_start.getLocWithOffset(offset); };
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      const clang::SourceLocation where = function->getLocation();
      if (knobs.thread_merge_x != 1 || knobs.stage_shared != 0) {
        throw MergeRefusal{refusal(kernel.place(where), kKnob,
                                   "does not combine with thread_merge_x or stage_shared yet")};
      }
      const auto block = knobs.naive_blocks.find(function->getNameAsString());
      if (block != knobs.naive_blocks.end() && block->second[0] != 0 &&
          block->second[0] % static_cast<uint32_t>(lanes) != 0) {
        throw MergeRefusal{refusal(kernel.place(where), kKnob,
                                   "the block's " + std::to_string(block->second[0]) +
                                       " threads along x are not a multiple of " +
                                       std::to_string(lanes))};
      }
      facts.check(*function, {Builtin::kThreadIdx, Builtin::kBlockDim}, kDimX);
      const IndexDependence dependence(facts, *function, {Builtin::kThreadIdx, kDimX, false});
      const SplitAnalysis analysis(kernel, facts, dependence, *function);
      const std::string lane = text.fresh("gputune_lane");
      const std::string mask = text.fresh("gputune_lanes");
      for (const Edit& edit : text.edits(function->getBody(), SplitRules(lanes))) {
        rewriter.ReplaceText(at(edit.span.begin), edit.span.end - edit.span.begin, edit.text);
      }
      const auto* body = llvm::cast<clang::CompoundStmt>(function->getBody());
      const std::string top =
          body->body_empty() ? "  " : text.indent_at(text.extent(body->body_front()).begin);
      rewriter.InsertTextAfterToken(
          body->getLBracLoc(), "\n" + top + "const int " + lane + " = threadIdx.x % " +
                                   std::to_string(lanes) + ";\n" + top + "const unsigned " + mask +
                                   " = " + lane_mask(lanes) + ";");
      for (const Store& store : analysis.stores) {
        const Span span = text.extent(store.statement);
        const std::string guard = "if (" + lane + " == 0) ";
        rewriter.InsertTextBefore(at(span.begin), store.in_compound ? guard : "{ " + guard);
        if (!store.in_compound) rewriter.InsertTextAfter(at(span.end), " }");
        outcome.places.push_back(store.statement);
      }
      for (const Reduction& reduction : analysis.reductions) {
        const Span span = text.extent(reduction.outer);
        const std::string indent = text.indent_at(span.begin);
        const std::string line = reduction.in_compound ? "\n" + indent : " ";
        std::string before = reduction.in_compound ? "" : "{ ";
        std::string after;
        for (const clang::VarDecl* accumulator : reduction.accumulators) {
          const std::string name = accumulator->getNameAsString();
          before += "if (" + lane + " != 0) " + name + " = 0;" + line;
          for (int offset = lanes / 2; offset > 0; offset /= 2) {
            after += line + name + " += __shfl_xor_sync(" + mask + ", " + name + ", " +
                     std::to_string(offset) + ");";
          }
        }
        if (!reduction.in_compound) after += " }";
        // Before a #pragma (unroll's) the text goes on the lines above it.
        unsigned first = span.begin;
        if (llvm::isa<clang::AttributedStmt>(reduction.outer)) {
          const size_t line = kernel.unit().text.rfind('\n', span.begin == 0 ? 0 : span.begin - 1);
          first = static_cast<unsigned>((line == std::string::npos ? 0 : line + 1) + indent.size());
        }
        rewriter.InsertTextBefore(at(first), before);
        rewriter.InsertTextAfter(at(span.end), after);
        // The lane's first iteration and the stride of S iterations.
        const clang::Expr* start = reduction.iterator->getInit();
        const Span start_span = text.replaceable(start->getSourceRange());
        const std::string offset =
            reduction.step == 1 ? lane : lane + " * " + std::to_string(reduction.step);
        const auto* literal = llvm::dyn_cast<clang::IntegerLiteral>(start->IgnoreImpCasts());
        if (literal && literal->getValue() == 0) {
          rewriter.ReplaceText(at(start_span.begin), start_span.end - start_span.begin, offset);
        } else {
          rewriter.InsertTextBefore(at(start_span.begin), "(");
          rewriter.InsertTextAfter(at(start_span.end), ") + " + offset);
        }
        const Span step_span = text.replaceable(reduction.loop->getInc()->getSourceRange());
        const long long stride = reduction.step * lanes;
        rewriter.ReplaceText(
            at(step_span.begin), step_span.end - step_span.begin,
            reduction.iterator->getNameAsString() +
                (stride > 0 ? " += " + std::to_string(stride) : " -= " + std::to_string(-stride)));
        outcome.places.push_back(reduction.loop);
      }
      outcome.loops += static_cast<int>(analysis.reductions.size());
      outcome.stores += static_cast<int>(analysis.stores.size());
      // The block grows S times: a bound on its threads must grow with it.
      text.scale_launch_bounds(*function, '*', lanes, rewriter);
    }
    outcome.rewrite = {true, rewritten_source(kernel, rewriter), ""};
  } catch (const MergeRefusal& refused) {
    outcome.rewrite = {false, "", refused.message};
  }
  return outcome;
}

class ThreadSplit : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = std::string(kKnob) + " takes no target; it splits every launched kernel";
      return verdict;
    }
    // Legality does not depend on the number of lanes: two answer for all.
    SourceKnobs probe;
    probe.thread_split_x = 2;
    const Outcome outcome = split(kernel, probe);
    verdict.applies = outcome.rewrite.ok;
    if (!verdict.applies) {
      verdict.reason = outcome.rewrite.message;
      return verdict;
    }
    verdict.reason =
        "S threads along x do the work of one; loops split across them: " +
        std::to_string(outcome.loops) +
        ", statements that write memory kept to lane 0: " + std::to_string(outcome.stores);
    for (const clang::Stmt* place : outcome.places) verdict.places.push_back(kernel.place(place));
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override { return knobs.thread_split_x != 1; }

  std::string key(const SourceKnobs& knobs) const override {
    std::string key = std::string(kKnob) + "=" + std::to_string(knobs.thread_split_x) + "," +
                      std::to_string(knobs.thread_merge_x) + "," +
                      std::to_string(knobs.stage_shared);
    for (const auto& [name, block] : knobs.naive_blocks) {
      key += "," + name + ":" + std::to_string(block[0]);
    }
    return key;
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    return split(kernel, knobs).rewrite;
  }
};

// After the merges (30) and unroll (40): unroll finds its loops by their headers, which the
// split rewrites; the split keeps a loop's #pragma on it. After partition_offset (45), before
// launch_bounds (50).
const TransformationRegistrar kRegistrar{47, std::make_unique<ThreadSplit>()};

}  // namespace
}  // namespace gputune::engine
