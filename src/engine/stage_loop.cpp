// stage_shared in a loop: the method's coalescing by staging for the accesses of a loop
// `for (j = S; j < E; ++j)`. An access read in its body with an index affine in one thread id
// i (threadIdx.x or threadIdx.y), the loop's count and invariants, read uncoalesced or shared
// by the block's threads along the other dimension, is staged strip by strip: the loop is
// strip-mined by T iterations (stage_shared's value); each strip the whole block loads the
// R x T words its threads read (R the naive block's extent along i) into a shared tile, with
// neighbouring threads on neighbouring words (along j where the index steps by one word with
// j, along i where it does with i), each word under the guard of its naive threads and the
// strip's tail under the loop's condition; a barrier; the loop's own iterations of the strip,
// reading the tile; a barrier. A loop under a top-level `if` cannot hold a barrier: the `if`
// becomes a block whose condition is kept in `gputune_guard`, every thread runs the strips
// and reaches the barriers, and the loop's body and the statements after it run under the
// condition. The one-thread-per-row matrix-vector product becomes the version that loads a
// tile of rows; the naive matrix multiply becomes the shared-memory tiled one.
#include <clang/Lex/Lexer.h>

#include <map>

#include "engine/call_facts.h"
#include "engine/stage_shared.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "stage_shared";

bool is_thread(const std::string& term) { return term == "threadIdx.x" || term == "threadIdx.y"; }

// The thread id an index depends on ("" for none, "?" for both or z).
std::string thread_term(const Affine& index) {
  std::string found;
  for (const auto& entry : index.terms) {
    if (entry.first == "threadIdx.z") return "?";
    if (!is_thread(entry.first)) continue;
    if (!found.empty()) return "?";
    found = entry.first;
  }
  return found;
}

// The loop's count term: the iterator's name.
std::string count_term(const Access& access) {
  const LoopFacts& facts = access.loop_facts.back();
  return facts.iterator ? facts.iterator->getNameAsString() : "";
}

bool uses_dimension(const ParsedKernel& kernel, const clang::FunctionDecl* function, char dim) {
  return any_node(function->getBody(), [&](const clang::Stmt* node) {
    const auto* expression = llvm::dyn_cast<clang::Expr>(node);
    if (!expression) return false;
    const auto component = kernel.builtin_component(expression);
    return component && component->first == Builtin::kThreadIdx && component->second == dim;
  });
}

// Where the loop stands: the top-level statement it is (perhaps labelled), or the one child of
// a top-level `if`'s branch; the `if` (null for none) and the statement the loop is in its branch.
struct Place {
  const clang::IfStmt* guard = nullptr;
  const clang::Stmt* statement = nullptr;  // the loop or its label
};

std::optional<Place> place_of(const Access& access) {
  const clang::Stmt* loop = access.loops.front();
  const auto is_loop = [loop](const clang::Stmt* s) {
    if (const auto* label = llvm::dyn_cast<clang::LabelStmt>(s)) s = label->getSubStmt();
    return s == loop;
  };
  if (is_loop(access.top_statement)) return Place{nullptr, access.top_statement};
  const auto* branch = llvm::dyn_cast<clang::IfStmt>(access.top_statement);
  if (!branch || branch->getElse() || branch->getInit() || branch->getConditionVariable()) {
    return std::nullopt;
  }
  if (is_loop(branch->getThen())) return Place{branch, branch->getThen()};
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(branch->getThen())) {
    for (const clang::Stmt* child : block->body()) {
      if (is_loop(child)) return Place{branch, child};
    }
  }
  return std::nullopt;
}

// Whether the strip's words lie along the loop (tile[i][c]) rather than along the thread id
// (tile[c][i]).
bool along_loop(const Access& access) {
  return is_one(access.indices[0]->coefficient(count_term(access)));
}

}  // namespace

bool loop_candidate(const ParsedKernel& kernel, const Access& access) {
  if (access.loops.empty()) return false;
  const Coalescing verdict = coalescing(access);
  if (verdict == Coalescing::kUncoalesced) return true;
  if (verdict == Coalescing::kUnknown || access.write || access.indices.size() != 1) return false;
  const std::string count = count_term(access);
  if (count.empty() || access.indices[0]->coefficient(count).empty()) return false;
  const std::string thread = thread_term(*access.indices[0]);
  if (thread.empty() || thread == "?") return false;
  // Shared by the threads along the other dimension, which the kernel tells apart.
  return uses_dimension(kernel, access.kernel, thread == "threadIdx.x" ? 'y' : 'x');
}

Obstacle loop_obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                       const Access& access) {
  if (access.indices.size() != 1) {
    return {"a multi-dimensional access: staging handles a single subscript"};
  }
  if (access.write) return {"it is written in a loop: staging a loop's stores is not implemented"};
  if (access.loops.size() != 1) {
    return {"it is in a nested loop: staging strip-mines a loop that no other loop holds"};
  }
  const LoopFacts& loop = access.loop_facts.back();
  if (!loop.iterator || !loop.start || !loop.step) {
    return {"its loop is not `for (v = start; ...; v += step)` with v left alone in its body"};
  }
  if (!loop.start->invariant() || !is_one(loop.step->coefficient(""))) {
    return {"its loop's start is not the same for the block's threads or its step is not one"};
  }
  const std::string count = count_term(access);
  if (!loop.condition || loop.condition->size() != 1) {
    return {"its loop's condition is not one comparison of affine forms"};
  }
  const Comparison& condition = loop.condition->front();
  const Affine difference = condition.left - condition.right;
  const Poly slope = difference.coefficient(count);
  const bool rising = is_one(slope);
  const bool falling = is_one((Affine() - difference).coefficient(count));
  if (difference.terms.size() > 2 ||
      (difference.terms.size() == 2 && !difference.terms.count("")) ||
      !((rising && (condition.op == clang::BO_LT || condition.op == clang::BO_LE)) ||
        (falling && (condition.op == clang::BO_GT || condition.op == clang::BO_GE)))) {
    return {"its loop's condition is not `" + count +
            " < bound` with a bound the same for the block's threads"};
  }
  const Affine& index = *access.indices[0];
  if (index.coefficient(count).empty()) {
    return {"its index does not change with the loop: nothing to stage strip by strip", true};
  }
  for (const auto& entry : index.terms) {
    const std::string& term = entry.first;
    if (!term.empty() && term != count && !is_thread(term) && term != "blockIdx.x" &&
        term != "blockIdx.y") {
      return {"its index depends on " + term + ": only x and y ids and the loop are staged"};
    }
  }
  const std::string thread = thread_term(index);
  if (thread.empty()) {
    return {"every thread reads the same words: a warp loads each once already", true};
  }
  if (thread == "?") {
    return {
        "its index depends on both threadIdx.x and threadIdx.y: a strip's tile would be "
        "three-dimensional"};
  }
  if (!along_loop(access) && !is_one(index.coefficient(thread))) {
    return {"neither " + thread +
            " nor the loop steps the index by one word: a tile's load "
            "would not be coalesced either"};
  }
  if (!access.guard) {
    return {
        "a condition around it is not a comparison of affine forms of the ids and the "
        "kernel's parameters"};
  }
  const std::string other = thread == "threadIdx.x" ? "threadIdx.y" : "threadIdx.x";
  for (const Comparison& c : *access.guard) {
    const Affine both = c.left - c.right;
    if (!both.coefficient(count).empty() || !both.coefficient("threadIdx.z").empty()) {
      return {
          "a condition in the loop guards it: the strip's load would read words the loop "
          "skips"};
    }
    if (!both.coefficient(thread).empty() && !both.coefficient(other).empty()) {
      return {"a condition around it relates threadIdx.x and threadIdx.y"};
    }
  }
  if (Obstacle why = array_obstacle(kernel, all, access); !why.why.empty()) return why;
  if (Obstacle why = return_before(kernel, access); !why.why.empty()) return why;
  const std::optional<Place> where = place_of(access);
  if (!where) {
    return {
        "its loop is neither a statement of the kernel's body nor one of a top-level `if` "
        "without `else`: the barriers of the strips could not be hoisted"};
  }
  const clang::Stmt* body = access.loops.front();
  if (has_return(body) || any_node(body, [](const clang::Stmt* n) {
        return llvm::isa<clang::BreakStmt>(n) || llvm::isa<clang::GotoStmt>(n);
      })) {
    return {"its loop holds a return or a break: the strips' barriers need every iteration"};
  }
  if (any_node(body, [&](const clang::Stmt* n) {
        const auto* call = llvm::dyn_cast<clang::CallExpr>(n);
        const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
        return callee && callee->getName() == "__syncthreads";
      })) {
    return {"its loop holds a barrier already"};
  }
  if (where->guard) {
    if (has_return(where->guard)) {
      return {"a return in " + kernel.place(where->guard).str() +
              " would keep threads from the strips' barriers"};
    }
    // The statements before the loop in the `if` run for every thread once it is hoisted.
    if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(where->guard->getThen())) {
      for (const clang::Stmt* child : block->body()) {
        if (child == where->statement) break;
        const bool reads = any_node(child, [&](const clang::Stmt* n) {
          if (llvm::isa<clang::CallExpr>(n)) return true;
          for (const Access& other : all) {
            if (other.expression == n) return true;
          }
          return false;
        });
        if (llvm::isa<clang::DeclStmt>(child) && reads) {
          return {"the declaration " + kernel.place(child).str() +
                  " before the loop reads memory or calls a function: hoisted out of the "
                  "condition, every thread would run it"};
        }
      }
    }
  }
  return {};
}

StagedTile loop_tile(const Access& access) {
  StagedTile tile;
  const StagedTile::Extent thread = thread_term(*access.indices[0]) == "threadIdx.x"
                                        ? StagedTile::Extent::kBlockX
                                        : StagedTile::Extent::kBlockY;
  const bool along = along_loop(access);
  tile.rows = along ? thread : StagedTile::Extent::kStrip;
  tile.columns = along ? StagedTile::Extent::kStrip : thread;
  return tile;
}

std::string stage_loops(const ParsedKernel& kernel, const std::vector<const Access*>& staged,
                        const SourceKnobs& knobs, std::set<std::string>& names,
                        clang::Rewriter& rewriter) {
  const std::string strip = std::to_string(knobs.stage_shared);
  // The loops in the order of the text, each with its staged accesses.
  std::vector<const clang::Stmt*> order;
  std::map<const clang::Stmt*, std::vector<const Access*>> of_loop;
  std::map<const clang::Stmt*, int> loops_of_guard;
  for (const Access* access : staged) {
    const clang::Stmt* loop = access->loops.front();
    if (!of_loop.count(loop)) {
      order.push_back(loop);
      if (const auto where = place_of(*access); where->guard) ++loops_of_guard[where->guard];
    }
    of_loop[loop].push_back(access);
  }
  uint64_t bytes = 0;
  for (const clang::Stmt* loop_statement : order) {
    const std::vector<const Access*>& accesses = of_loop[loop_statement];
    const Access& first = *accesses.front();
    const auto* loop = llvm::cast<clang::ForStmt>(loop_statement);
    const Place where = *place_of(first);
    if (where.guard && loops_of_guard[where.guard] > 1) {
      return refusal(kernel.place(where.guard), kKnob,
                     "two staged loops under one condition: each needs it hoisted");
    }
    const std::array<uint32_t, 3>& block = knobs.naive_blocks.at(first.kernel->getNameAsString());
    const LoopFacts& facts = first.loop_facts.back();
    const std::string iterator = facts.iterator->getNameAsString();
    const std::string count = iterator;  // the count's term is named after the iterator
    const bool from_zero = facts.start->terms.empty();
    const clang::Expr* start_expression = nullptr;
    if (const auto* declaration = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit())) {
      if (declaration->isSingleDecl()) {
        if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(declaration->getSingleDecl())) {
          start_expression = variable->getInit();
        }
      }
    } else if (const auto* assignment =
                   llvm::dyn_cast_or_null<clang::BinaryOperator>(loop->getInit())) {
      if (assignment->getOpcode() == clang::BO_Assign) start_expression = assignment->getRHS();
    }
    if (!start_expression || !kernel.file_range(start_expression->getSourceRange()).isValid() ||
        !kernel.file_range(loop->getCond()->getSourceRange()).isValid()) {
      return refusal(kernel.place(loop), kKnob,
                     "its start or condition is not written in the kernel file (a macro's body)");
    }
    const std::string start_text = kernel.text(start_expression);
    const Spelling invariant = [](const std::string& name) { return "(long long)" + name; };
    // The strip's first count and the words' counts.
    const Spelling at_strip = [&](const std::string& name) -> std::string {
      return name == count ? "gputune_s" : invariant(name);
    };
    const Comparison& condition = facts.condition->front();
    const std::string strip_condition = condition.left.text(at_strip) + " " +
                                        clang::BinaryOperator::getOpcodeStr(condition.op).str() +
                                        " " + condition.right.text(at_strip);

    const std::string indent = indentation(kernel, where.statement);
    const std::string top_indent = indentation(kernel, first.top_statement);
    const std::string in = indent + "  ";
    std::string declarations, loads;
    std::map<std::string, std::string> tiles;  // array, index -> tile name
    for (const Access* access : accesses) {
      const Affine& index = *access->indices[0];
      const std::string thread = thread_term(index);
      const bool along = along_loop(*access);
      const uint32_t extent = block[thread == "threadIdx.x" ? 0 : 1];
      const std::string key = access->array + '\0' + index.text();
      const bool fresh = !tiles.count(key);
      std::string& tile = tiles[key];
      if (fresh) tile = tile_name(access->array, names);
      const std::string column =
          from_zero ? iterator + " - gputune_s" : iterator + " - (" + start_text + ") - gputune_s";
      rewriter.ReplaceText(kernel.file_range(access->expression->getSourceRange()),
                           along ? tile + "[" + thread + "][" + column + "]"
                                 : tile + "[" + column + "][" + thread + "]");
      if (!fresh) continue;
      const uint32_t rows = along ? extent : static_cast<uint32_t>(knobs.stage_shared);
      const uint32_t columns = along ? static_cast<uint32_t>(knobs.stage_shared) : extent;
      bytes += uint64_t{rows} * columns * element_bytes(kernel, *access);
      declarations += "__shared__ " + element_type(kernel, *access) + " " + tile + "[" +
                      std::to_string(rows) + "][" + std::to_string(columns) + "];\n" + top_indent;
      // Word w of the tile: its row and column, its naive thread's id and its count.
      const Spelling word = [&](const std::string& name) -> std::string {
        if (name == thread) return "gputune_i";
        if (name == count) return "(gputune_s + gputune_c)";
        if (name == "blockDim.x") return std::to_string(block[0]);
        if (name == "blockDim.y") return std::to_string(block[1]);
        if (name == "blockDim.z") return "1";
        return invariant(name);
      };
      std::vector<Comparison> guard;
      for (const Comparison& c : *access->guard) {
        const std::string other = thread == "threadIdx.x" ? "threadIdx.y" : "threadIdx.x";
        if ((c.left - c.right).coefficient(other).empty()) guard.push_back(c);
      }
      guard.push_back({condition.left, condition.op, condition.right});
      const std::string threads = std::to_string(block[0] * block[1]);
      const std::string words = std::to_string(uint64_t{rows} * columns);
      const std::string row = along ? "gputune_i" : "gputune_c";
      const std::string col = along ? "gputune_c" : "gputune_i";
      loads += "{  // stage_shared: the block loads the strip's " + std::to_string(rows) + " x " +
               std::to_string(columns) + " words of " + access->array +
               ", neighbouring threads on neighbouring words\n" + in + "  " +
               "for (int gputune_w = threadIdx.y * " + std::to_string(block[0]) +
               " + threadIdx.x; gputune_w < " + words + "; gputune_w += " + threads + ") {\n" + in +
               "    const long long " + row + " = gputune_w / " + std::to_string(columns) + ";\n" +
               in + "    const long long " + col + " = gputune_w % " + std::to_string(columns) +
               ";\n" + in + "    if (" + guard_text(guard, word) + ")\n" + in + "      " + tile +
               "[" + row + "][" + col + "] = " + access->array + "[" + index.text(word) + "];\n" +
               in + "  }\n" + in + "}\n" + in;
    }
    if (bytes > kStaticSharedBytes) {
      return refusal(kernel.place(loop), kKnob,
                     "its tiles need " + std::to_string(bytes) +
                         " bytes of shared memory, above the 49152 a block declares statically");
    }
    // The strip loop around the loop, which now runs the strip's iterations.
    const std::string header = "for (int gputune_s = 0; " + strip_condition +
                               "; gputune_s += " + strip + ") {\n" + in + loads +
                               "__syncthreads();\n" + in;
    const std::string footer = "\n" + in + "__syncthreads();\n" + indent + "}";
    const clang::SourceLocation loop_begin =
        kernel.sources().getExpansionLoc(where.statement->getBeginLoc());
    const clang::Stmt* last = loop->getBody();
    const clang::SourceLocation loop_end =
        llvm::isa<clang::CompoundStmt>(last) ? after(kernel, loop) : after(kernel, last);
    rewriter.ReplaceText(kernel.file_range(start_expression->getSourceRange()),
                         from_zero ? "gputune_s" : "(" + start_text + ") + gputune_s");
    const clang::CharSourceRange condition_range =
        kernel.file_range(loop->getCond()->getSourceRange());
    rewriter.InsertTextBefore(condition_range.getBegin(), "(");
    rewriter.InsertTextAfter(condition_range.getEnd(),
                             ") && " +
                                 (from_zero ? iterator : iterator + " - (" + start_text + ")") +
                                 " < gputune_s + " + strip);
    if (!where.guard) {
      rewriter.InsertTextBefore(loop_begin, declarations + header);
      rewriter.InsertTextAfter(loop_end, footer);
      continue;
    }
    // Hoisted out of the `if`: its condition kept, the rest under it.
    const clang::IfStmt* branch = where.guard;
    const clang::SourceLocation if_begin = kernel.sources().getExpansionLoc(branch->getBeginLoc());
    const std::string condition_text = kernel.text(branch->getCond());
    const auto* then_block = llvm::dyn_cast<clang::CompoundStmt>(branch->getThen());
    const std::string guard_comment =
        "{  // stage_shared: every thread runs the strips' barriers; gputune_guard keeps the "
        "condition\n";
    if (then_block) {
      rewriter.ReplaceText(
          clang::CharSourceRange::getCharRange(
              if_begin,
              kernel.sources().getExpansionLoc(then_block->getLBracLoc()).getLocWithOffset(1)),
          declarations + guard_comment + indent + "const bool gputune_guard = " + condition_text +
              ";");
    } else {
      rewriter.ReplaceText(clang::CharSourceRange::getCharRange(if_begin, loop_begin),
                           declarations + guard_comment + indent +
                               "const bool gputune_guard = " + condition_text + ";\n" + indent);
    }
    rewriter.InsertTextBefore(loop_begin, header);
    rewriter.InsertTextBefore(kernel.sources().getExpansionLoc(loop->getBody()->getBeginLoc()),
                              "if (gputune_guard) ");
    std::vector<const clang::Stmt*> before, rest;
    if (then_block) {
      bool seen = false;
      for (const clang::Stmt* child : then_block->body()) {
        if (child == where.statement) {
          seen = true;
        } else {
          (seen ? rest : before).push_back(child);
        }
      }
    }
    for (const clang::Stmt* statement : before) {
      if (llvm::isa<clang::DeclStmt>(statement) || llvm::isa<clang::NullStmt>(statement)) continue;
      rewriter.InsertTextBefore(kernel.sources().getExpansionLoc(statement->getBeginLoc()),
                                "if (gputune_guard) { ");
      rewriter.InsertTextAfter(after(kernel, statement), " }");
    }
    if (rest.empty()) {
      rewriter.InsertTextAfter(loop_end, footer + (then_block ? "" : "\n" + top_indent + "}"));
    } else {
      rewriter.InsertTextAfter(loop_end, footer);
      rewriter.InsertTextBefore(
          kernel.sources().getExpansionLoc(rest.front()->getBeginLoc()),
          "if (gputune_guard) {  // the statements after the loop\n" + indent);
      rewriter.InsertTextAfter(after(kernel, rest.back()), "\n" + indent + "}");
    }
  }
  return "";
}

}  // namespace gputune::engine
