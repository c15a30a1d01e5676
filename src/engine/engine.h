#pragma once
// The transformation engine (docs/engine.md): a kernel's source parsed by Clang, analyses that
// produce facts about it, and transformations that rewrite it per variant, each refusing with a
// reason where it is not legal. This header is the engine's whole interface to the rest of
// gputune; nothing here includes Clang, which lives inside libgputune_engine.so alone.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if defined(GPUTUNE_ENGINE_BUILD)
#define GPUTUNE_ENGINE_API __attribute__((visibility("default")))
#else
#define GPUTUNE_ENGINE_API
#endif

namespace gputune::engine {

class ParsedKernel;

// One launch of a variant's sequence (the spec's `launches:` whose `when` holds), as loop
// fusion sees it: the kernel it runs, the spec's argument bound to each of its parameters.
struct LaunchBinding {
  std::string kernel;                  // the function, without template arguments
  std::vector<std::string> arguments;  // the spec's argument of each parameter, in order
  std::array<uint32_t, 3> block{1, 1, 1}, grid{1, 1, 1};
};

// What is parsed: one kernel file as the compiler sees it.
struct KernelUnit {
  std::string file_name;  // for messages: "matmul.cu" (or the path the spec gives)
  std::string text;
  std::vector<std::string> include_dirs;  // the kernel's folder, --include-path
  // -DNAME=value of the variant (the spec's parameters and defines): the parse depends on them.
  std::vector<std::pair<std::string, std::string>> defines;
  // The __global__ functions the launches name (without template arguments); the engine
  // transforms these.
  std::vector<std::string> kernels;
  // For `fuse`: the variant's launches before fusion, and the spec's outputs (an intermediate
  // that is one also reaches global memory).
  std::vector<LaunchBinding> launches;
  std::vector<std::string> outputs;
};

// How the N outputs of a merged thread lie: N blocks' width apart (neighbouring threads stay
// neighbours, so accesses stay coalesced) or next to each other.
enum class MergeLayout { kStrided, kConsecutive };

// The engine's knob values of one variant. The defaults change nothing.
struct GPUTUNE_ENGINE_API SourceKnobs {
  // `unroll`: #pragma unroll N (0: leave the loop as written) on each innermost loop (target
  // ""), or on one loop: a C++ label before it ("k_loop") or its line ("42").
  std::vector<std::pair<std::string, int>> unroll;  // target -> N
  // One thread does the work of N threads along x / y: the launch's block shrinks by N.
  int thread_merge_x = 1, thread_merge_y = 1;
  MergeLayout merge_layout = MergeLayout::kStrided;
  // S neighbouring threads along x do the work of one (1, 2, 4, ... 32): each counted loop that
  // accumulates into locals is split across them and the partial sums combined by shuffles; the
  // spec grows the launch's block S times.
  int thread_split_x = 1;
  // One block does the work of N neighbouring blocks along x / y: the grid shrinks by N and
  // the kernel receives the original grid's extent as a trailing parameter.
  int block_merge_x = 1, block_merge_y = 1;
  // Extra elements on the last dimension of each 2-D shared array (target ""), or of one.
  std::vector<std::pair<std::string, int>> pad_shared;  // target -> elements
  // __launch_bounds__(threads, N) on each transformed kernel; 0: none (an existing one stays).
  int launch_bounds = 0;
  // Threads per block of each kernel's launch after merging, for launch_bounds.
  std::map<std::string, uint32_t> block_threads;
  // 1: each uncoalesced global access that the block's threads along y complete goes through a
  // shared tile of the naive block's extent, loaded (stored) cooperatively and coalesced.
  int stage_shared = 0;
  // 1: in a loop stage_shared strip-mines, the next strip's tile words go into registers before
  // this strip's iterations and into the tiles after the barrier (the method's prefetch).
  int prefetch = 0;
  // 2 or 4: a thread's reads of neighbouring words of a shared tile (thread merge's consecutive
  // copies) become one float2 / float4 read where the alignment is provable; 1 leaves them.
  int vector_width = 1;
  // The naive kernel's block (the spec's launch before thread and block merges) of each kernel,
  // for stage_shared's tiles; {0, 0, 0} for a kernel launched with several.
  std::map<std::string, std::array<uint32_t, 3>> naive_blocks;
  // How many leading launches of the unit's `launches` become one kernel (0, 1: none).
  int fuse = 0;
  // 1: in a 1-D grid, each block starts the loops whose accesses stride between blocks by a
  // multiple of the memory partitions' span at an offset of its own (partition_offset.cpp).
  int partition_offset = 0;

  bool neutral() const;
};

// A place in the user's kernel file and what is there, for refusals and reports.
struct GPUTUNE_ENGINE_API SourcePlace {
  std::string file;
  int line = 0, column = 0;
  std::string text;         // the statement or declaration, abbreviated to one line
  std::string str() const;  // "file:line:column"
};

// Whether a knob can take other values than its neutral one on this kernel, and why not.
struct KnobVerdict {
  std::string knob;                 // "thread_merge_y", "unroll(k_loop)", "pad_shared"
  bool applies = false;             // false: only the neutral value is legal
  std::string reason;               // why it does not apply, or what it applies to
  std::vector<SourcePlace> places;  // the statements or declarations the reason names
};

// The result of rewriting a kernel for one variant.
struct Rewrite {
  bool ok = false;
  std::string source;   // the kernel file's new text (ok)
  std::string message;  // why not (not ok): "matmul.cu:12:5: thread_merge_y: ..."
};

// One global-memory access of a transformed kernel, as the method's index analysis sees it
// (docs/engine.md, "The access analysis").
struct GPUTUNE_ENGINE_API AccessFact {
  SourcePlace place;
  std::string kernel;
  std::string array;  // the pointer it goes through: "in"
  bool read = false, write = false;
  // The index as an affine form over threadIdx, blockIdx and the loops' iteration counts, with
  // the kernel's locals replaced by their definitions: "rows*threadIdx.x + threadIdx.y +
  // blockDim.x*rows*blockIdx.x + blockDim.y*blockIdx.y"; one "[...]" per subscript of a
  // multi-dimensional access; "?" for a subscript that is not affine.
  std::string index;
  std::string index_class;  // "constant", "thread/block ids", "loop iterator", "unknown"
  // "coalesced" (neighbouring threads in x touch neighbouring words), "uniform" (the whole warp
  // touches one word), "uncoalesced", "unknown".
  std::string coalescing;
  // Who else touches the same words: "threads along y", "blocks along x".
  std::vector<std::string> shared;
  // What each of the method's rules decided for it: "coalescing: ...", "staging: ...",
  // "merge: ...".
  std::vector<std::string> decisions;
};

// A __shared__ tile stage_shared declares (at the macros analysed), for the space's limit on
// static shared memory: rows x columns elements, each extent the naive block's along x or y,
// the strip of a staged loop (stage_shared's value) or one.
struct StagedTile {
  enum class Extent { kOne, kBlockX, kBlockY, kStrip };
  std::string kernel;
  std::string name;  // "gputune_out_tile": pad_shared(<name>) pads it
  Extent rows = Extent::kOne, columns = Extent::kOne;
  uint32_t element_bytes = 0;
};

// The static shared memory a variant's staged tiles take: each tile at the naive block of its
// kernel (`knobs.naive_blocks`) and `knobs.stage_shared`, padded by pad_shared; a loop's tile
// scaled by a block merge along its thread extent, another once per sub-block. 0 where
// stage_shared is 0.
GPUTUNE_ENGINE_API uint64_t staged_shared_bytes(const std::vector<StagedTile>& tiles,
                                                const SourceKnobs& knobs);
// The static shared memory a block may declare (48 KiB on every GPU since Fermi).
constexpr uint64_t kStaticSharedBytes = 48 * 1024;

// An intermediate of a fused chain: written by one stage, read by later ones from a shared
// array of the writer's tile plus halo (`swap`: which of the fused kernel's shared arrays).
struct FusedIntermediate {
  std::string array;  // the spec's argument: "t1"
  int writer = 0;     // the stage (launch) that writes it, from 0
  int last_reader = 0;
  int swap = 0;
  std::string element_type;  // "float"
  uint32_t element_bytes = 0;
  bool global = false;  // also stored to global memory: an output, or a later launch reads it
};

// The fused kernel of the first `launches` launches.
struct FusionPlan {
  int launches = 0;
  // The halo each stage computes around the block's tile, per dimension (x, y).
  std::vector<std::array<int, 2>> halos;
  std::vector<FusedIntermediate> intermediates;
};

// The loop-fusion analysis of the unit's launch sequence (docs/engine.md, "fuse").
struct GPUTUNE_ENGINE_API FusionFacts {
  int fusable = 0;      // how many leading launches fuse into one kernel (0: fewer than two)
  std::string refusal;  // why the next launch does not join ("file:line:column: ...")
  std::vector<std::string> lines;  // the analysis as `gputune transforms` prints it
  std::vector<FusionPlan> plans;   // for 2, 3, ... fusable launches
  const FusionPlan* plan(int launches) const;
};

// The fused kernel's name is the first launch's kernel's with this suffix: "k1_gputune_fused".
inline constexpr const char* kFusedSuffix = "_gputune_fused";
// Whether a kernel is the one `fuse` wrote: it takes the thread merges as its tile's threads, so
// thread_merge leaves it alone.
inline bool is_fused_kernel(const std::string& name) {
  const std::string suffix = kFusedSuffix;
  return name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The static shared memory of `fuse` leading launches fused at `block` (each swap array at its
// largest intermediate's tile plus halo); 0 where fuse < 2 or beyond the fusable launches.
GPUTUNE_ENGINE_API uint64_t fused_shared_bytes(const FusionFacts& facts, int fuse,
                                               const std::array<uint32_t, 3>& block);

// The kernel as parsed, its diagnostics, and the engine's verdicts on each knob.
struct GPUTUNE_ENGINE_API Analysis {
  bool parsed = false;
  // Clang's errors where the source does not parse ("file:line:column: error: ..."), one per
  // line; the knobs then keep their neutral values.
  std::string diagnostics;
  std::vector<KnobVerdict> knobs;
  // The global accesses of the transformed kernels, in the order they run.
  std::vector<AccessFact> accesses;
  // The tiles stage_shared would declare.
  std::vector<StagedTile> staged_tiles;
  // Loop fusion of the unit's launches (empty without two launches).
  FusionFacts fusion;
  const KnobVerdict* find(const std::string& knob) const;
};

// Parses each distinct unit once and remembers rewrites; thread-safe.
class GPUTUNE_ENGINE_API SourceEngine {
 public:
  SourceEngine();
  ~SourceEngine();
  SourceEngine(const SourceEngine&) = delete;
  SourceEngine& operator=(const SourceEngine&) = delete;

  // The verdicts on `knobs` as the spec names them ("unroll(k_loop)"); all of the engine's
  // knobs, without targets, when empty.
  Analysis analyse(const KernelUnit& unit, const std::vector<std::string>& knobs = {});
  // Every non-neutral knob in turn, in the engine's fixed order (stage_shared and prefetch,
  // pad_shared, block merge, thread merge, vector_width, unroll, partition_offset,
  // launch_bounds); not ok with the first refusal.
  Rewrite rewrite(const KernelUnit& unit, const SourceKnobs& knobs);
  // The unit parsed by Clang, once per distinct unit: analyse, rewrite and kernel_signatures
  // share it (engine-internal: ParsedKernel is in parsed_kernel.h, which includes Clang).
  std::shared_ptr<const ParsedKernel> parse(const KernelUnit& unit);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The one engine of the process (Problem, the CLI and Python share its memo).
GPUTUNE_ENGINE_API SourceEngine& source_engine();

// How many times this process has parsed a kernel file with Clang (ParsedKernel::parse): a
// search's start-up parses the spec's kernel once.
GPUTUNE_ENGINE_API int clang_parses();

}  // namespace gputune::engine
