// stage_shared: the method's coalescing by staging. An uncoalesced global access whose index is
// c*threadIdx.x + threadIdx.y + (block ids and invariants) touches, over the block, By words in
// a row for each of its Bx threads along x: the naive thread (a, b) touches word R + c*a + b.
// The block's tile of Bx x By words goes through shared memory: thread t = ty*Bx + tx of the
// block loads (or stores) word (t / By, t % By), so neighbouring threads touch neighbouring
// words, each under the naive thread's own guard; a barrier separates that from the threads'
// own reads (writes) of tile[threadIdx.x][threadIdx.y]. The naive transpose becomes the tiled
// one (pad_shared then pads the tile). Rank 5: before pad_shared, on the user's text. A loop's
// accesses are staged strip by strip (stage_loop.cpp).
#include "engine/stage_shared.h"

#include <clang/AST/Attr.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <set>

#include "engine/call_facts.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "stage_shared";
constexpr const char* kPrefetch = "prefetch";

// The naive block of the access's kernel, or the refusal.
std::string naive_block(const ParsedKernel& kernel, const SourceKnobs& knobs, const Access& access,
                        const std::array<uint32_t, 3>** block) {
  const std::string function = access.kernel->getNameAsString();
  const auto found = knobs.naive_blocks.find(function);
  const SourcePlace place = kernel.original().place(access.kernel);
  if (found == knobs.naive_blocks.end()) {
    return refusal(place, kKnob,
                   "the launch of " + function + " is not known, so neither is its tile");
  }
  if (found->second[0] == 0) {
    return refusal(
        place, kKnob,
        function + " is launched with several block shapes: its tile's extent is not one");
  }
  if (found->second[2] != 1) {
    return refusal(place, kKnob,
                   "the block of " + function + " is three-dimensional; tiles are 2-D");
  }
  *block = &found->second;
  return "";
}

Obstacle obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                  const Access& access) {
  if (!access.loops.empty()) return loop_obstacle(kernel, all, access);
  if (access.indices.size() != 1) {
    return {"a multi-dimensional access: staging handles a single subscript"};
  }
  const Affine& index = *access.indices[0];
  for (const auto& entry : index.terms) {
    const std::string& term = entry.first;
    if (!term.empty() && term != "threadIdx.x" && term != "threadIdx.y" && term != "blockIdx.x" &&
        term != "blockIdx.y") {
      return {"its index depends on " + term + ": only x and y ids are staged"};
    }
  }
  if (!is_one(index.coefficient("threadIdx.y"))) {
    return {
        "the data is not reused: no other thread of the block touches the rest of the words "
        "a warp touches once (threadIdx.y does not step the index by one word)",
        true};
  }
  if (!access.guard) {
    return {
        "a condition around it is not a comparison of affine forms of the ids and the "
        "kernel's parameters"};
  }
  if (Obstacle why = array_obstacle(kernel, all, access); !why.why.empty()) return why;
  if (Obstacle why = return_before(kernel, access); !why.why.empty()) return why;
  if (access.write && access.read) {
    return {"it is read and written (`+=`, `++`): staging moves the write after a barrier"};
  }
  if (access.write && has_return(access.top_statement)) {
    return {"a return in " + kernel.place(access.top_statement).str() +
            " would keep threads from the barrier after it"};
  }
  return {};
}

bool candidate(const ParsedKernel& kernel, const Access& access) {
  return stage_candidate(kernel, access);
}

class StageShared : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob, kPrefetch}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = knob.base + " takes no target";
      return verdict;
    }
    if (knob.base == kPrefetch) return prefetch_verdict(kernel);
    const std::vector<Access> accesses = find_accesses(kernel);
    std::string stages, leaves;
    for (const Access& access : accesses) {
      if (!candidate(kernel, access)) continue;
      const Obstacle why = obstacle(kernel, accesses, access);
      const SourcePlace place = kernel.place(access.expression);
      if (why.why.empty()) {
        stages += (stages.empty() ? "" : ", ") + place.text + " (" + place.str() +
                  (access.loops.empty() ? ")" : ", a tile per strip of its loop)");
        verdict.places.insert(verdict.places.begin(), place);
      } else {
        leaves += (leaves.empty() ? "" : "; ") + place.text + ": " + place.str() + ": " + why.why;
        verdict.places.push_back(place);
      }
    }
    verdict.applies = !stages.empty();
    if (stages.empty() && leaves.empty()) {
      verdict.reason = "every global access is coalesced, uniform or not affine";
    } else if (stages.empty()) {
      verdict.reason = leaves;
    } else {
      verdict.reason = "stages " + stages + " through a shared tile of the naive block's extent";
      if (!leaves.empty()) verdict.reason += "; leaves " + leaves;
    }
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override {
    return knobs.stage_shared != 0 || knobs.prefetch != 0;
  }

  // Prefetch applies where stage_shared strip-mines a loop.
  KnobVerdict prefetch_verdict(const ParsedKernel& kernel) const {
    KnobVerdict verdict;
    const std::vector<Access> accesses = find_accesses(kernel);
    std::string loops;
    for (const Access& access : accesses) {
      if (access.loops.empty() || !candidate(kernel, access) ||
          !obstacle(kernel, accesses, access).why.empty()) {
        continue;
      }
      const SourcePlace place = kernel.place(access.loops.front());
      if (loops.find(place.str()) != std::string::npos) continue;
      loops += (loops.empty() ? "" : ", ") + place.str();
      verdict.places.push_back(place);
    }
    verdict.applies = !loops.empty();
    verdict.reason = verdict.applies
                         ? "with stage_shared at a strip's width, loads the next strip's tile "
                           "words into registers during each strip of the loops at " +
                               loops
                         : "there is no strip loop: stage_shared stages no loop of this kernel";
    return verdict;
  }

  std::string key(const SourceKnobs& knobs) const override {
    // A loop's tile loads are written for the launched block, which the merges shape.
    std::string key = "stage_shared=" + std::to_string(knobs.stage_shared) +
                      ",prefetch=" + std::to_string(knobs.prefetch) +
                      ",merges=" + std::to_string(knobs.thread_merge_x) + "x" +
                      std::to_string(knobs.thread_merge_y) + "/" +
                      std::to_string(knobs.block_merge_x) + "x" +
                      std::to_string(knobs.block_merge_y);
    for (const auto& [name, block] : knobs.naive_blocks) {
      key += "," + name + ":" + std::to_string(block[0]) + "x" + std::to_string(block[1]) + "x" +
             std::to_string(block[2]);
    }
    return key;
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    const ParsedKernel& user = kernel.original();
    const auto refuse = [&](const SourcePlace& place, const std::string& why) {
      return Rewrite{false, "", refusal(place, kKnob, why)};
    };
    if (knobs.prefetch != 0 && knobs.prefetch != 1) {
      return Rewrite{false, "",
                     refusal({kernel.unit().file_name, 0, 0, ""}, kPrefetch,
                             "expected 0 or 1, not " + std::to_string(knobs.prefetch))};
    }
    if (knobs.prefetch && knobs.stage_shared == 0) {
      return Rewrite{false, "",
                     refusal({kernel.unit().file_name, 0, 0, ""}, kPrefetch,
                             "there is no strip loop: stage_shared is 0, so no loop is "
                             "strip-mined")};
    }
    if (knobs.stage_shared < 1) {
      return refuse({kernel.unit().file_name, 0, 0, ""},
                    "expected 0 (as written) or a strip's width of 1 or more (stage), not " +
                        std::to_string(knobs.stage_shared));
    }
    const std::vector<Access> accesses = find_accesses(kernel);
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    std::string first_obstacle;
    SourcePlace first_place{kernel.unit().file_name, 0, 0, ""};
    std::map<std::string, std::string> tiles;  // kernel, array, index -> tile name
    std::set<std::string> names;
    int staged = 0;
    std::vector<const Access*> in_loops;
    for (const Access& access : accesses) {
      if (!candidate(kernel, access)) continue;
      const Obstacle why = obstacle(kernel, accesses, access);
      if (!why.why.empty()) {
        if (first_obstacle.empty()) {
          first_obstacle = why.why;
          first_place = user.place(access.expression);
        }
        continue;
      }
      const std::array<uint32_t, 3>* block = nullptr;
      if (const std::string why = naive_block(kernel, knobs, access, &block); !why.empty()) {
        return {false, "", why};
      }
      if (!access.loops.empty()) {
        in_loops.push_back(&access);
        continue;
      }
      const uint32_t bx = (*block)[0], by = (*block)[1];
      const uint64_t bytes = uint64_t{bx} * by * element_bytes(kernel, access);
      if (bytes > kStaticSharedBytes) {
        return refuse(user.place(access.expression),
                      "its tile of " + std::to_string(bx) + " x " + std::to_string(by) +
                          " elements needs " + std::to_string(bytes) +
                          " bytes of shared memory, above the 49152 a block declares statically");
      }
      const Affine& index = *access.indices[0];
      const std::string key = access.kernel->getNameAsString() + '\0' + access.array + '\0' +
                              index.text() + '\0' + (access.write ? "w" : "r");
      std::string& tile = tiles[key];
      const bool fresh = tile.empty();
      if (fresh) tile = tile_name(access.array, names);
      rewriter.ReplaceText(kernel.file_range(access.expression->getSourceRange()),
                           tile + "[threadIdx.x][threadIdx.y]");
      ++staged;
      if (!fresh) continue;
      // The naive thread (gputune_a, gputune_b)'s index and guard: `narrow` in the kernel's own
      // types, `spelling` with every other symbol widened to 64 bits.
      const Spelling narrow = [bx, by](const std::string& name) -> std::string {
        if (name == "threadIdx.x") return "gputune_a";
        if (name == "threadIdx.y") return "gputune_b";
        if (name == "blockDim.x") return std::to_string(bx);
        if (name == "blockDim.y") return std::to_string(by);
        if (name == "blockDim.z") return "1";
        return name;
      };
      const Spelling spelling = [narrow](const std::string& name) -> std::string {
        const std::string own = narrow(name);
        return own != name ? own : "(long long)" + name;
      };
      const std::string guard = guard_text(*access.guard, spelling);
      const std::string element = element_type(kernel, access);
      const std::string indent = indentation(kernel, access.top_statement);
      const std::string in = indent + "  ";
      const std::string element_ref =
          access.array + "[" + staged_index_text(kernel, access, spelling, narrow) + "]";
      const std::string tile_ref = tile + "[gputune_a][gputune_b]";
      const std::string copy =
          (guard.empty() ? "" : "if (" + guard + ")\n" + in + "  ") +
          (access.write ? element_ref + " = " + tile_ref : tile_ref + " = " + element_ref) + ";\n";
      const std::string cooperative =
          "{  // stage_shared: thread t of the block " +
          std::string(access.write ? "stores" : "loads") + " word (t / " + std::to_string(by) +
          ", t % " + std::to_string(by) + ") of the tile\n" + in +
          "const int gputune_t = threadIdx.y * " + std::to_string(bx) + " + threadIdx.x;\n" + in +
          "const int gputune_a = gputune_t / " + std::to_string(by) + ";\n" + in +
          "const int gputune_b = gputune_t % " + std::to_string(by) + ";\n" + in + copy + indent +
          "}\n";
      const std::string declaration = "__shared__ " + element + " " + tile + "[" +
                                      std::to_string(bx) + "][" + std::to_string(by) + "];\n";
      const clang::SourceLocation before =
          kernel.sources().getExpansionLoc(access.top_statement->getBeginLoc());
      if (access.write) {
        rewriter.InsertTextBefore(before, declaration + indent);
        rewriter.InsertTextAfter(after(kernel, access.top_statement),
                                 "\n" + indent + "__syncthreads();\n" + indent +
                                     cooperative.substr(0, cooperative.size() - 1));
      } else {
        rewriter.InsertTextBefore(
            before, declaration + indent + cooperative + indent + "__syncthreads();\n" + indent);
      }
    }
    if (knobs.prefetch && in_loops.empty()) {
      return {false, "",
              refusal(staged > 0 ? user.place(user.kernels().front()) : first_place, kPrefetch,
                      "there is no strip loop: stage_shared stages no loop of this kernel" +
                          (first_obstacle.empty() ? "" : " (" + first_obstacle + ")"))};
    }
    if (!in_loops.empty()) {
      if (const std::string why = stage_loops(kernel, accesses, in_loops, knobs, names, rewriter);
          !why.empty()) {
        return {false, "", why};
      }
      staged += static_cast<int>(in_loops.size());
    }
    if (staged == 0) {
      return refuse(first_place, first_obstacle.empty()
                                     ? "every global access is coalesced, uniform or not affine"
                                     : first_obstacle);
    }
    return {true, rewritten_source(kernel, rewriter), ""};
  }
};

const TransformationRegistrar kRegistrar{5, std::make_unique<StageShared>()};

}  // namespace

Obstacle array_obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                        const Access& access) {
  if (!kernel.macro_name(access.expression->getBeginLoc()).empty() ||
      !kernel.file_range(access.expression->getSourceRange()).isValid()) {
    return {"it is written in a macro's body"};
  }
  if (!access.array_variable || !llvm::isa<clang::ParmVarDecl>(access.array_variable)) {
    return {"its pointer is not one of the kernel's parameters"};
  }
  const clang::Stmt* body = access.kernel->getBody();
  // The pointer handed to a function may be read or written there.
  const clang::VarDecl* array = access.array_variable;
  std::string passed;
  any_node(body, [&](const clang::Stmt* node) {
    const auto* call = llvm::dyn_cast<clang::CallExpr>(node);
    if (!call) return false;
    for (const clang::Expr* argument : call->arguments()) {
      any_node(argument, [&](const clang::Stmt* inner) {
        const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(inner);
        if (reference && reference->getDecl() == array && passed.empty()) {
          passed = kernel.place(call).str();
        }
        return !passed.empty();
      });
    }
    return !passed.empty();
  });
  if (!passed.empty()) return {access.array + " is passed to a function at " + passed};
  for (const Access& other : all) {
    if (&other == &access || other.array_variable != array) continue;
    if (access.read && !access.write && other.write) {
      return {access.array + " is written in the kernel at " +
              kernel.place(other.expression).str() + ": a staged load would read it early"};
    }
    if (access.write && other.read) {
      return {access.array + " is read in the kernel at " + kernel.place(other.expression).str() +
              ": a staged store would write it late"};
    }
    if (access.write && other.write) {
      return {access.array + " is written at " + kernel.place(other.expression).str() +
              " too: a staged store would reorder the writes"};
    }
  }
  return {};
}

Obstacle return_before(const ParsedKernel& kernel, const Access& access) {
  for (const clang::Stmt* statement : access.kernel->getBody()->children()) {
    if (statement == access.top_statement) break;
    if (has_return(statement)) {
      return {"a return before " + kernel.place(statement).str() +
              " would keep threads from the barrier staging needs"};
    }
  }
  return {};
}

bool has_return(const clang::Stmt* statement) {
  return any_node(statement, [](const clang::Stmt* n) { return llvm::isa<clang::ReturnStmt>(n); });
}

std::string indentation(const ParsedKernel& kernel, const clang::Stmt* statement) {
  const clang::SourceLocation begin = kernel.sources().getExpansionLoc(statement->getBeginLoc());
  const unsigned column = kernel.sources().getExpansionColumnNumber(begin);
  return std::string(column > 0 ? column - 1 : 0, ' ');
}

clang::SourceLocation after(const ParsedKernel& kernel, const clang::Stmt* statement) {
  clang::SourceLocation end = kernel.sources().getExpansionLoc(statement->getEndLoc());
  end = clang::Lexer::getLocForEndOfToken(end, 0, kernel.sources(), kernel.language());
  if (llvm::isa<clang::Expr>(statement) || llvm::isa<clang::ReturnStmt>(statement) ||
      llvm::isa<clang::DoStmt>(statement)) {
    const std::optional<clang::Token> next =
        clang::Lexer::findNextToken(end.getLocWithOffset(-1), kernel.sources(), kernel.language());
    if (next && next->is(clang::tok::semi)) end = next->getEndLoc();
  }
  return end;
}

// The index of the naive thread (gputune_a, gputune_b) of the block: the block's part (the
// block ids and invariant symbols) in 64 bits, plus the thread's part in the naive index's own
// 32-bit type where that part is the whole index of a naive thread of block 0 (the index has no
// invariant term), which the naive kernel computes in that type: 64-bit products per element
// cost a transpose a fifth of its bandwidth.
std::string staged_index_text(const ParsedKernel& kernel, const Access& access,
                              const Spelling& wide, const Spelling& narrow) {
  const Affine& index = *access.indices[0];
  Affine block, thread;
  for (const auto& [term, poly] : index.terms) {
    (term == "threadIdx.x" || term == "threadIdx.y" ? thread : block).terms[term] = poly;
  }
  const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(access.expression);
  const bool narrow_index =
      subscript && kernel.context().getTypeSize(subscript->getIdx()->getType()) <= 32;
  if (!narrow_index || thread.terms.empty() || index.terms.count("")) return index.text(wide);
  if (block.terms.empty()) return thread.text(narrow);
  return block.text(wide) + " + (" + thread.text(narrow) + ")";
}

std::string guard_text(const std::vector<Comparison>& guard, const Spelling& spelling) {
  std::string text;
  for (const Comparison& c : guard) {
    text += (text.empty() ? "" : " && ") + c.left.text(spelling) + " " +
            clang::BinaryOperator::getOpcodeStr(c.op).str() + " " + c.right.text(spelling);
  }
  return text;
}

std::string element_type(const ParsedKernel& kernel, const Access& access) {
  const clang::QualType pointee = access.array_variable->getType()->getPointeeType();
  return pointee.getUnqualifiedType().getAsString(kernel.context().getPrintingPolicy());
}

uint32_t element_bytes(const ParsedKernel& kernel, const Access& access) {
  return static_cast<uint32_t>(
      kernel.context()
          .getTypeSizeInChars(access.array_variable->getType()->getPointeeType())
          .getQuantity());
}

std::string tile_name(const std::string& array, std::set<std::string>& names) {
  std::string tile = "gputune_" + array + "_tile";
  for (int n = 2; names.count(tile); ++n) tile = "gputune_" + array + "_tile" + std::to_string(n);
  names.insert(tile);
  return tile;
}

std::vector<StagedTile> stage_shared_tiles(const ParsedKernel& kernel) {
  const std::vector<Access> accesses = find_accesses(kernel);
  std::vector<StagedTile> tiles;
  std::set<std::string> keys;
  std::set<std::string> names;
  for (const Access& access : accesses) {
    if (!stage_candidate(kernel, access) || !obstacle(kernel, accesses, access).why.empty()) {
      continue;
    }
    const std::string function = access.kernel->getNameAsString();
    const std::string key = function + '\0' + access.array + '\0' + access.indices[0]->text() +
                            '\0' + (access.write ? "w" : "r");
    if (!keys.insert(key).second) continue;
    StagedTile tile = access.loops.empty() ? StagedTile{} : loop_tile(access);
    tile.kernel = function;
    tile.name = tile_name(access.array, names);
    if (access.loops.empty()) {
      tile.rows = StagedTile::Extent::kBlockX;
      tile.columns = StagedTile::Extent::kBlockY;
    }
    tile.element_bytes = element_bytes(kernel, access);
    tiles.push_back(std::move(tile));
  }
  return tiles;
}

uint64_t staged_shared_bytes(const std::vector<StagedTile>& tiles, const SourceKnobs& knobs) {
  if (knobs.stage_shared == 0) return 0;
  const uint64_t merge_x = static_cast<uint64_t>(std::max(knobs.block_merge_x, 1));
  const uint64_t merge_y = static_cast<uint64_t>(std::max(knobs.block_merge_y, 1));
  uint64_t bytes = 0;
  for (const StagedTile& tile : tiles) {
    const auto block = knobs.naive_blocks.find(tile.kernel);
    if (block == knobs.naive_blocks.end()) continue;
    // A loop's tile is the merged block's (block merge scales it); another tile has a copy per
    // sub-block.
    const bool strip =
        tile.rows == StagedTile::Extent::kStrip || tile.columns == StagedTile::Extent::kStrip;
    const auto extent = [&](StagedTile::Extent e) -> uint64_t {
      switch (e) {
        case StagedTile::Extent::kBlockX:
          return block->second[0] * (strip ? merge_x : 1);
        case StagedTile::Extent::kBlockY:
          return block->second[1] * (strip ? merge_y : 1);
        case StagedTile::Extent::kStrip:
          return static_cast<uint64_t>(knobs.stage_shared);
        case StagedTile::Extent::kOne:
          break;
      }
      return 1;
    };
    uint64_t pad = 0;
    for (const auto& [target, elements] : knobs.pad_shared) {
      if (target.empty() || target == tile.name) pad = static_cast<uint64_t>(elements);
    }
    bytes += uint64_t{tile.element_bytes} * extent(tile.rows) * (extent(tile.columns) + pad) *
             (strip ? 1 : merge_x * merge_y);
  }
  return bytes;
}

bool stage_candidate(const ParsedKernel& kernel, const Access& access) {
  if (!access.loops.empty()) return loop_candidate(kernel, access);
  return coalescing(access) == Coalescing::kUncoalesced;
}

std::string stage_shared_decision(const ParsedKernel& kernel, const std::vector<Access>& all,
                                  const Access& access) {
  const Obstacle why = obstacle(kernel, all, access);
  if (why.why.empty() && !access.loops.empty()) {
    return "staging: stage_shared stages it strip by strip through a shared tile (the loop at " +
           kernel.place(access.loops.front()).str() +
           " strip-mined by stage_shared's value, each strip's tile loaded by the block, "
           "coalesced)";
  }
  if (why.why.empty()) {
    return std::string(
               "staging: stage_shared stages it through a shared tile (a cooperative, "
               "coalesced ") +
           (access.write ? "store after " : "load before ") +
           kernel.place(access.top_statement).str() + ")";
  }
  return std::string("staging: stage_shared ") + (why.skip ? "skips" : "refuses") +
         " it: " + why.why;
}

}  // namespace gputune::engine
