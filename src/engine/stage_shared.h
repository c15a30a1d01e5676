#pragma once
// stage_shared (engine-internal): the rule for one access, for the access analysis's report, and
// what its two halves (stage_shared.cpp: accesses outside loops; stage_loop.cpp: a loop's
// accesses, strip by strip) share.
#include <clang/Rewrite/Core/Rewriter.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/access_analysis.h"

namespace gputune::engine {

// What the method's staging rule decides for an uncoalesced access: "staging: stage_shared
// stages it ..." or why it skips or refuses it. `access` is one of `all`, the kernel's accesses.
std::string stage_shared_decision(const ParsedKernel& kernel, const std::vector<Access>& all,
                                  const Access& access);

// Whether the staging rule looks at an access at all (its report says what it decided).
bool stage_candidate(const ParsedKernel& kernel, const Access& access);

// The tiles stage_shared declares in this kernel (one per staged array, index and direction).
std::vector<StagedTile> stage_shared_tiles(const ParsedKernel& kernel);

// Why stage_shared leaves an access alone ("" where it stages it); `skip`: the rule says it
// would not pay, rather than that it cannot be done.
struct Obstacle {
  std::string why;
  bool skip = false;
};

// The checks on the array every staged access passes: written in a macro's body, a pointer
// that is not a parameter, passed to a function, written (read) elsewhere in the kernel.
Obstacle array_obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                        const Access& access);
// A return in a top-level statement before `statement`'s.
Obstacle return_before(const ParsedKernel& kernel, const Access& access);

// The same for an access in a loop (stage_loop.cpp); candidates only.
bool loop_candidate(const ParsedKernel& kernel, const Access& access);
Obstacle loop_obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                       const Access& access);
// The tile a staged loop access reads (its extents), for stage_shared_tiles.
StagedTile loop_tile(const Access& access);

// Stages the loops of `staged` (accesses of `all` that passed loop_obstacle) strip by strip
// with `rewriter`; `names` holds the tiles' names taken. "" or the refusal.
std::string stage_loops(const ParsedKernel& kernel, const std::vector<Access>& all,
                        const std::vector<const Access*>& staged, const SourceKnobs& knobs,
                        std::set<std::string>& names, clang::Rewriter& rewriter);

// One tile's cooperative load of a strip (stage_strip.cpp): `rows` x `columns` words of
// `element`, word (row, column) spelled on `row` and `column` (gputune_i and gputune_c, in some
// order) in `guard` and `index`, loaded by the `physical` block's threads.
struct TileLoad {
  std::string tile, array, element;
  std::string registers;  // prefetch's: the thread's words of the next strip
  uint32_t rows = 0, columns = 0;
  std::array<uint32_t, 2> physical{1, 1};  // the launched block after the merges
  std::string row, column;
  // Which words lie in the array (the others are zero) and the word's index in it, the strip's
  // first count spelled gputune_strip.
  std::string guard, index;
  // The words a thread loads.
  uint32_t trips() const;
};
// Where a strip's words go: from the array into the tile, or (prefetch) into the thread's
// registers, then from them into the tile.
enum class LoadMode { kTile, kRegisters, kFromRegisters };
// The load as block-level code (call_facts.h): one loop over the launched block's threads,
// linear id threadIdx.x + X * threadIdx.y, a constant trip count unrolled, int arithmetic with
// constant extents, words outside the array zero; `strip`: the strip's first count. `in`: the
// indentation of its lines.
std::string tile_load_text(const TileLoad& load, LoadMode mode, const std::string& strip,
                           const std::string& in);
// The most words prefetch holds in a thread's registers, over a loop's tiles.
constexpr uint32_t kPrefetchWords = 64;

// Whether a staged loop's body may run for every thread, without the condition `guard` (the
// top-level `if` around the loop) that the naive threads ran it under: it assigns only locals
// declared inside that `if`, calls only pure functions, divides no integers, and reads global
// memory only through the staged accesses (`staged`, zero-filled tiles) and accesses of `all`
// whose index depends on no thread or block id (a word some thread reads anyway).
bool runs_unguarded(const ParsedKernel& kernel, const std::vector<Access>& all,
                    const std::vector<const Access*>& staged, const clang::IfStmt* guard,
                    const clang::Stmt* body);

// The element type's name and size of the array an access goes through.
std::string element_type(const ParsedKernel& kernel, const Access& access);
uint32_t element_bytes(const ParsedKernel& kernel, const Access& access);
// A fresh tile name for an array: gputune_<array>_tile, then _tile2, ...
std::string tile_name(const std::string& array, std::set<std::string>& names);
// The spaces before a statement's first line; where the text after a statement goes.
std::string indentation(const ParsedKernel& kernel, const clang::Stmt* statement);
clang::SourceLocation after(const ParsedKernel& kernel, const clang::Stmt* statement);
bool has_return(const clang::Stmt* statement);
// The staged element's index for the naive thread (gputune_a, gputune_b) of the block: `wide`
// spells it in 64 bits, `narrow` its thread's part where that fits the naive index's type.
std::string staged_index_text(const ParsedKernel& kernel, const Access& access,
                              const Spelling& wide, const Spelling& narrow);
// A guard's comparisons as CUDA text, each form spelled by `spelling`.
std::string guard_text(const std::vector<Comparison>& guard, const Spelling& spelling);

}  // namespace gputune::engine
