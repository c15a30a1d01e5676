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

#include <algorithm>
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

std::string stage_loops(const ParsedKernel& kernel, const std::vector<Access>& all,
                        const std::vector<const Access*>& staged, const SourceKnobs& knobs,
                        std::set<std::string>& names, clang::Rewriter& rewriter) {
  const int strip_width = knobs.stage_shared;
  const std::string strip = std::to_string(strip_width);
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
  const int merge[2] = {std::max(knobs.block_merge_x, 1), std::max(knobs.block_merge_y, 1)};
  const int thread_merge[2] = {std::max(knobs.thread_merge_x, 1),
                               std::max(knobs.thread_merge_y, 1)};
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
    // The block as launched after the merges: the tiles' loads run on its threads.
    uint32_t physical[2];
    for (int d = 0; d < 2; ++d) {
      if (block[d] % thread_merge[d] != 0) {
        return refusal(kernel.place(first.kernel), kKnob,
                       std::string("thread_merge_") + (d ? "y" : "x") + " " +
                           std::to_string(thread_merge[d]) + " does not divide the naive block's " +
                           std::to_string(block[d]) +
                           " threads: the tiles' loads need the launched block");
      }
      physical[d] = block[d] / thread_merge[d] * merge[d];
    }
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
        !kernel.file_range(loop->getCond()->getSourceRange()).isValid() ||
        !kernel.file_range(loop->getBody()->getSourceRange()).isValid()) {
      return refusal(kernel.place(loop), kKnob,
                     "its start or condition is not written in the kernel file (a macro's body)");
    }
    const std::string start_text = kernel.text(start_expression);
    const Spelling invariant = [](const std::string& name) { return "(long long)" + name; };
    // The loop's condition at a count of the strip (gputune_s: its first).
    const Comparison& condition = facts.condition->front();
    const auto condition_at = [&](const std::string& at) {
      const Spelling spelling = [&](const std::string& name) -> std::string {
        return name == count ? at : invariant(name);
      };
      return condition.left.text(spelling) + " " +
             clang::BinaryOperator::getOpcodeStr(condition.op).str() + " " +
             condition.right.text(spelling);
    };
    const std::string strip_condition = condition_at("gputune_s");

    const std::string indent = indentation(kernel, where.statement);
    const std::string top_indent = indentation(kernel, first.top_statement);
    const std::string in = indent + "  ";
    std::string declarations, loads, preloads, next_loads;
    uint32_t prefetched = 0;                   // words per thread
    std::map<std::string, std::string> tiles;  // array, index -> tile name
    for (const Access* access : accesses) {
      const Affine& index = *access->indices[0];
      const std::string thread = thread_term(index);
      const int d = thread == "threadIdx.x" ? 0 : 1;
      const std::string other_block = d ? "blockIdx.x" : "blockIdx.y";
      // The tile's extent along the thread id: the naive block's, once per merged sub-block.
      const uint32_t extent = block[d] * static_cast<uint32_t>(merge[d]);
      const bool along = along_loop(*access);
      std::vector<Comparison> guard;
      for (const Comparison& c : *access->guard) {
        const std::string other = d ? "threadIdx.x" : "threadIdx.y";
        if ((c.left - c.right).coefficient(other).empty()) guard.push_back(c);
      }
      if (merge[1 - d] > 1) {
        bool differs = !index.coefficient(other_block).empty();
        for (const Comparison& c : guard) {
          differs = differs || !(c.left - c.right).coefficient(other_block).empty();
        }
        if (differs) {
          return refusal(kernel.original().place(access->expression), kKnob,
                         "its words depend on " + other_block + ", along which block_merge puts " +
                             std::to_string(merge[1 - d]) +
                             " blocks together: each would need a tile of its own");
        }
      }
      const std::string key = access->array + '\0' + index.text();
      const bool fresh = !tiles.count(key);
      std::string& tile = tiles[key];
      if (fresh) tile = tile_name(access->array, names);
      const std::string column =
          from_zero ? iterator + " - gputune_s" : iterator + " - (" + start_text + ") - gputune_s";
      // The naive thread's row of the tile: its sub-block's rows first.
      const std::string row = merge[d] == 1 ? thread
                                            : "(" + thread + " + " + std::to_string(block[d]) +
                                                  " * (blockIdx." + (d ? "y" : "x") + " % " +
                                                  std::to_string(merge[d]) + "))";
      rewriter.ReplaceText(
          kernel.file_range(access->expression->getSourceRange()),
          along ? tile + "[" + row + "][" + column + "]" : tile + "[" + column + "][" + row + "]");
      if (!fresh) continue;
      TileLoad load;
      load.tile = tile;
      load.array = access->array;
      load.element = element_type(kernel, *access);
      load.rows = along ? extent : static_cast<uint32_t>(strip_width);
      load.columns = along ? static_cast<uint32_t>(strip_width) : extent;
      load.physical = {physical[0], physical[1]};
      bytes += uint64_t{load.rows} * load.columns * element_bytes(kernel, *access);
      declarations += "__shared__ " + load.element + " " + tile + "[" + std::to_string(load.rows) +
                      "][" + std::to_string(load.columns) + "];\n" + top_indent;
      // Word (gputune_i, gputune_c) of the tile: its naive thread's id and its count.
      const Spelling word = [&](const std::string& name) -> std::string {
        if (name == thread) return "gputune_i";
        if (name == count) return "(gputune_strip + gputune_c)";
        if (name == "blockDim.x") return std::to_string(block[0]);
        if (name == "blockDim.y") return std::to_string(block[1]);
        if (name == "blockDim.z") return "1";
        const int b = name == "blockIdx.x" ? 0 : name == "blockIdx.y" ? 1 : -1;
        if (b >= 0 && merge[b] > 1) {
          return "(" + std::to_string(merge[b]) + " * (long long)" + name + ")";
        }
        return invariant(name);
      };
      guard.push_back({condition.left, condition.op, condition.right});
      load.guard = guard_text(guard, word);
      load.index = index.text(word);
      load.row = along ? "gputune_i" : "gputune_c";
      load.column = along ? "gputune_c" : "gputune_i";
      if (!knobs.prefetch) {
        loads += tile_load_text(load, LoadMode::kTile, "gputune_s", in) + "\n" + in;
        continue;
      }
      // Prefetch: strip 0 into registers before the strips; each strip, its words from the
      // registers into the tile, then the next strip's into the registers.
      load.registers = tile + "_next";
      prefetched += load.trips();
      declarations += load.element + " " + load.registers + "[" + std::to_string(load.trips()) +
                      "];\n" + top_indent;
      preloads += tile_load_text(load, LoadMode::kRegisters, "0", indent) + "\n" + indent;
      loads += tile_load_text(load, LoadMode::kFromRegisters, "", in) + "\n" + in;
      next_loads +=
          tile_load_text(load, LoadMode::kRegisters, "gputune_s + " + strip, in) + "\n" + in;
    }
    if (prefetched > kPrefetchWords) {
      return refusal(kernel.place(loop), "prefetch",
                     "the next strip's words would take " + std::to_string(prefetched) +
                         " registers a thread, above the " + std::to_string(kPrefetchWords) +
                         " prefetch allows (a narrower strip or more threads take fewer)");
    }
    if (bytes > kStaticSharedBytes) {
      return refusal(kernel.place(loop), kKnob,
                     "its tiles need " + std::to_string(bytes) +
                         " bytes of shared memory, above the 49152 a block declares statically");
    }
    // The loop's body, its accesses reading the tiles; under the condition where it needs it.
    const clang::Stmt* body = loop->getBody();
    const clang::SourceLocation body_begin = kernel.sources().getExpansionLoc(body->getBeginLoc());
    const std::string body_text = rewriter.getRewrittenText(
        clang::CharSourceRange::getCharRange(body_begin, after(kernel, body)));
    const bool guarded = where.guard && !runs_unguarded(kernel, all, accesses, where.guard, body);
    const std::string guard_prefix = guarded ? "if (gputune_guard) " : "";
    // A whole strip runs its T iterations unrolled; the last, partial one as the loop says.
    const auto source_text = [&](clang::SourceLocation from, clang::SourceLocation to) {
      return clang::Lexer::getSourceText(clang::CharSourceRange::getCharRange(from, to),
                                         kernel.sources(), kernel.language())
          .str();
    };
    const clang::CharSourceRange start_range =
        kernel.file_range(start_expression->getSourceRange());
    const clang::CharSourceRange condition_range =
        kernel.file_range(loop->getCond()->getSourceRange());
    const std::string strip_start = from_zero ? "gputune_s" : "(" + start_text + ") + gputune_s";
    const std::string in_strip =
        (from_zero ? iterator : iterator + " - (" + start_text + ")") + " < gputune_s + " + strip;
    // A label in the body cannot be written twice: such a loop keeps its one, bounded copy.
    const bool copied =
        !any_node(body, [](const clang::Stmt* n) { return llvm::isa<clang::LabelStmt>(n); });
    const std::string whole =
        !copied ? ""
                : "if (" + condition_at("(gputune_s + " + std::to_string(strip_width - 1) + ")") +
                      ") {  // a whole strip: its iterations unrolled\n" + in + "#pragma unroll\n" +
                      in +
                      source_text(kernel.sources().getExpansionLoc(loop->getBeginLoc()),
                                  start_range.getBegin()) +
                      strip_start + source_text(start_range.getEnd(), condition_range.getBegin()) +
                      in_strip + source_text(condition_range.getEnd(), body_begin) + guard_prefix +
                      body_text + "\n" + in + "} else ";
    // The strip loop around the loop, which now runs the strip's iterations.
    const std::string header = preloads + "for (int gputune_s = 0; " + strip_condition +
                               "; gputune_s += " + strip + ") {\n" + in + loads +
                               "__syncthreads();\n" + in + next_loads;
    const std::string footer = "\n" + in + "__syncthreads();\n" + indent + "}";
    const clang::SourceLocation loop_begin =
        kernel.sources().getExpansionLoc(where.statement->getBeginLoc());
    const clang::SourceLocation loop_end =
        llvm::isa<clang::CompoundStmt>(body) ? after(kernel, loop) : after(kernel, body);
    rewriter.ReplaceText(start_range, strip_start);
    rewriter.InsertTextBefore(condition_range.getBegin(), "(");
    rewriter.InsertTextAfter(condition_range.getEnd(), ") && " + in_strip);
    if (!where.guard) {
      rewriter.InsertTextBefore(loop_begin, declarations + header);
      rewriter.InsertTextAfter(loop_begin, whole);
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
    rewriter.InsertTextAfter(loop_begin, whole);
    if (guarded) rewriter.InsertTextBefore(body_begin, guard_prefix);
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
