// fuse: the first N launches of the sequence become one kernel, appended to the file (the
// originals stay for the launches left unfused). Each stage's block computes its tile (the naive
// launch's block) plus the halo its later stages read, its threads looping over those cells with
// the naive kernel's body run for each (threadIdx.x/y become the cell's ids, which may lie
// outside the block, and blockDim.x/y the tile's extent); the intermediates go through shared
// swap arrays, with a barrier between stages. A thread merge along x or y leaves the tile as it
// is and gives it fewer threads, each looping over more cells: larger tiles recompute a smaller
// share of halo.
#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "engine/call_facts.h"
#include "engine/fusion_analysis.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "fuse";
// The most rows of one column a thread computes an iteration of a stage's loop.
constexpr uint64_t kStripRows = 4;

struct Failure {
  std::string message;
};

// The cell's ids in place of the thread's, and the tile's extent in place of the block's, in
// every threadIdx.x/y and blockDim.x/y under `root` that no replaced access holds.
void use_cell_ids(const ParsedKernel& kernel, clang::Rewriter& rewriter, const clang::Stmt* root,
                  const std::set<const clang::Stmt*>& skipped,
                  const std::array<uint32_t, 3>& tile) {
  any_node(root, [&](const clang::Stmt* node) {
    const auto* member = llvm::dyn_cast<clang::MemberExpr>(node);
    if (!member || skipped.count(member)) return false;
    const auto component = kernel.builtin_component(member);
    if (!component || component->second == 'z' ||
        (component->first != Builtin::kThreadIdx && component->first != Builtin::kBlockDim)) {
      return false;
    }
    const bool thread = component->first == Builtin::kThreadIdx;
    const clang::CharSourceRange range = kernel.file_range(member->getSourceRange());
    if (range.isInvalid()) {
      throw Failure{refusal(kernel.place(member), kKnob,
                            thread ? "a thread id written in a macro's body cannot become the "
                                     "cell's"
                                   : "a block extent written in a macro's body cannot become the "
                                     "tile's")};
    }
    const int d = component->second == 'x' ? 0 : 1;
    rewriter.ReplaceText(range,
                         thread ? (d == 0 ? "gputune_tx" : "gputune_ty") : std::to_string(tile[d]));
    return false;
  });
}

// Every node under `root`, itself included.
void collect(const clang::Stmt* root, std::set<const clang::Stmt*>* nodes) {
  any_node(root, [nodes](const clang::Stmt* node) {
    nodes->insert(node);
    return false;
  });
}

clang::CharSourceRange range_of(const ParsedKernel& kernel, const clang::Stmt* node) {
  const clang::CharSourceRange range = kernel.file_range(node->getSourceRange());
  if (range.isInvalid()) {
    throw Failure{refusal(kernel.place(node), kKnob, "it is written in a macro's body")};
  }
  return range;
}

// "const float* __restrict__ " of `const float* __restrict__ in`.
std::string declared_type(const ParsedKernel& kernel, const clang::ParmVarDecl* parameter) {
  const std::string text = kernel.text(parameter->getSourceRange());
  const std::string name = parameter->getNameAsString();
  if (name.empty() || text.size() < name.size() ||
      text.compare(text.size() - name.size(), name.size(), name) != 0) {
    throw Failure{refusal(kernel.place(parameter), kKnob,
                          "its parameter is not declared as `type name`, which the fused "
                          "kernel copies")};
  }
  return text.substr(0, text.size() - name.size());
}

class FusedText {
 public:
  FusedText(const ParsedKernel& kernel, const FusionAnalysis& analysis, const FusionPlan& plan,
            const SourceKnobs& knobs)
      : kernel_(kernel), stages_(analysis.stages), plan_(plan) {
    block_ = stages_[0].binding->block;
    threads_ = {block_[0] / static_cast<uint32_t>(knobs.thread_merge_x),
                block_[1] / static_cast<uint32_t>(knobs.thread_merge_y)};
    for (const auto& halo : plan_.halos) {
      for (int d = 0; d < 2; ++d) widest_halo_[d] = std::max(widest_halo_[d], halo[d]);
    }
  }

  std::string text() const {
    std::string out = "\n__global__ void " + stages_[0].binding->kernel + kFusedSuffix + "(" +
                      parameters() + ") {\n";
    out += "  // fuse: launches 1 to " + std::to_string(plan_.launches) +
           " in one kernel; each stage computes the block's " + std::to_string(block_[0]) + " x " +
           std::to_string(block_[1]) + " tile (" + std::to_string(threads_[0]) + " x " +
           std::to_string(threads_[1]) +
           " threads) and the halo its later stages read, into shared memory\n";
    std::map<int, std::pair<std::string, uint64_t>> swaps;  // type, elements
    for (const FusedIntermediate& intermediate : plan_.intermediates) {
      auto& swap = swaps[intermediate.swap];
      swap.first = intermediate.element_type;
      swap.second =
          std::max<uint64_t>(swap.second, width(intermediate.writer) * height(intermediate.writer));
    }
    for (const auto& [k, swap] : swaps) {
      out += "  __shared__ " + swap.first + " gputune_swap" + std::to_string(k) + "[" +
             std::to_string(swap.second) + "];\n";
    }
    out += inner_block();
    for (int s = 0; s < plan_.launches; ++s) {
      out += stage(s);
      if (s + 1 < plan_.launches) out += "  __syncthreads();\n";
    }
    return out + "}\n";
  }

 private:
  // Whether the block's tile and widest halo lie inside the launch's grid: such a block's
  // cells need no bounds test, and most blocks are such.
  std::string inner_block() const {
    std::string inner;
    for (int d = 0; d < 2; ++d) {
      if (widest_halo_[d] == 0) continue;
      const std::string axis = d == 0 ? "x" : "y", extent = std::to_string(block_[d]),
                        halo = std::to_string(widest_halo_[d]);
      inner += std::string(inner.empty() ? "" : " && ") + "(long long)blockIdx." + axis + " * " +
               extent + " >= " + halo + " && ((long long)blockIdx." + axis + " + 1) * " + extent +
               " + " + halo + " <= (long long)gridDim." + axis + " * " + extent;
    }
    if (inner.empty()) return "";
    return "  const bool gputune_inner = " + inner + ";\n";
  }

  uint64_t width(int s) const { return block_[0] + 2ull * plan_.halos[s][0]; }
  uint64_t height(int s) const { return block_[1] + 2ull * plan_.halos[s][1]; }

  const FusedIntermediate* intermediate(const std::string& array) const {
    for (const FusedIntermediate& intermediate : plan_.intermediates) {
      if (intermediate.array == array) return &intermediate;
    }
    return nullptr;
  }

  // " + 2", " - 1" or nothing.
  static std::string offset(long long value) {
    if (value == 0) return "";
    return (value > 0 ? " + " : " - ") + std::to_string(value > 0 ? value : -value);
  }

  // The shared word of `intermediate` at the cell (gputune_tx + dx, gputune_ty + dy).
  std::string shared_word(const FusedIntermediate& intermediate, int dx, int dy) const {
    const auto& halo = plan_.halos[intermediate.writer];
    return "gputune_swap" + std::to_string(intermediate.swap) + "[(gputune_ty" +
           offset(dy + halo[1]) + ") * " + std::to_string(width(intermediate.writer)) +
           " + gputune_tx" + offset(dx + halo[0]) + "]";
  }

  // The fused kernel's parameters: each spec argument the fused launches pass, once, in the
  // order they first appear, declared as its first writer (else its first user) declares it.
  std::string parameters() const {
    std::vector<std::string> order;
    std::map<std::string, const clang::ParmVarDecl*> declared;
    for (int s = 0; s < plan_.launches; ++s) {
      const FusionStage& stage = stages_[s];
      for (unsigned p = 0; p < stage.function->getNumParams(); ++p) {
        const std::string& argument = stage.binding->arguments[p];
        const clang::ParmVarDecl* parameter = stage.function->getParamDecl(p);
        const auto [known, fresh] = declared.emplace(argument, parameter);
        if (fresh) order.push_back(argument);
        if (!fresh && stage.writes.count(argument) && !stages_writing_before(argument, s)) {
          known->second = parameter;
        }
      }
    }
    std::string text;
    for (const std::string& argument : order) {
      text += (text.empty() ? "" : ", ") + declared_type(kernel_, declared[argument]) + "gputune_" +
              argument;
    }
    return text;
  }

  bool stages_writing_before(const std::string& array, int s) const {
    for (int i = 0; i < s; ++i) {
      if (stages_[i].writes.count(array)) return true;
    }
    return false;
  }

  std::string stage(int s) const {
    const FusionStage& stage = stages_[s];
    const auto& halo = plan_.halos[s];
    const bool has_halo = halo[0] != 0 || halo[1] != 0;
    clang::Rewriter rewriter(kernel_.sources(), kernel_.language());
    // The nodes of the accesses replaced by shared ones; those whose text is gone (a store kept
    // in global memory is copied).
    std::set<const clang::Stmt*> replaced, dropped;
    bool uses_tile = false;
    for (const ChainRead& read : stage.chain_reads) {
      if (read.writer >= plan_.launches) continue;
      rewriter.ReplaceText(range_of(kernel_, read.expression),
                           shared_word(*intermediate(read.array), read.dx, read.dy));
      collect(read.expression, &replaced);
      collect(read.expression, &dropped);
    }
    for (const StageWrite& store : stage.stores) {
      const FusedIntermediate* shared = intermediate(store.array);
      if (shared && shared->writer != s) shared = nullptr;
      if (!shared && !has_halo) continue;
      // The global store, threadIdx made the cell's, for the tile's cells only.
      clang::Rewriter global(kernel_.sources(), kernel_.language());
      use_cell_ids(kernel_, global, store.expression, {}, block_);
      const std::string target = global.getRewrittenText(range_of(kernel_, store.expression));
      const clang::SourceLocation begin = range_of(kernel_, store.assignment).getBegin();
      const clang::SourceLocation end = store.assignment->getEndLoc();
      if (shared) {
        const std::string word = shared_word(*shared, 0, 0);
        rewriter.ReplaceText(range_of(kernel_, store.expression), word);
        collect(store.expression, &replaced);
        if (!shared->global) collect(store.expression, &dropped);
        if (shared->global) {
          uses_tile = true;
          rewriter.InsertTextBefore(begin, "(");
          rewriter.InsertTextAfterToken(
              end, "), (gputune_in_tile ? (void)(" + target + " = " + word + ") : (void)0)");
        }
      } else {
        uses_tile = true;
        rewriter.InsertTextBefore(begin, "(gputune_in_tile ? (void)(");
        rewriter.InsertTextAfterToken(end, ") : (void)0)");
      }
    }
    use_cell_ids(kernel_, rewriter, stage.function->getBody(), replaced, block_);
    const std::string body =
        rewriter.getRewrittenText(range_of(kernel_, stage.function->getBody()));

    const std::string w = std::to_string(width(s));
    std::string out = "  {  // stage " + std::to_string(s + 1) + ": " + stage.binding->kernel +
                      " (launch " + std::to_string(s + 1) + "), the tile and a halo of " +
                      std::to_string(halo[0]) + " x " + std::to_string(halo[1]) + "\n";
    // The parameters the body still uses (not those only its shared accesses named).
    std::set<const clang::Decl*> used;
    any_node(stage.function->getBody(), [&](const clang::Stmt* node) {
      const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(node);
      if (ref && !dropped.count(ref)) used.insert(ref->getDecl());
      return false;
    });
    for (unsigned p = 0; p < stage.function->getNumParams(); ++p) {
      const clang::ParmVarDecl* parameter = stage.function->getParamDecl(p);
      if (!used.count(parameter)) continue;
      out += "    " + declared_type(kernel_, parameter) + parameter->getNameAsString() +
             " = gputune_" + stage.binding->arguments[p] + ";\n";
    }
    // With thread_merge_y, each iteration takes a strip of rows down one column: the copies of
    // the body, unrolled, read neighbouring rows, so the compiler shares their loads, and the
    // cell's division is done once a strip (about 1.25x faster than a cell an iteration on an
    // H200, docs/engine.md). Without it, a strip would leave threads idle.
    const uint64_t strip = std::min<uint64_t>({kStripRows, block_[1] / threads_[1], height(s)});
    const uint64_t strips = (height(s) + strip - 1) / strip;
    out += "    for (int gputune_c = threadIdx.y * " + std::to_string(threads_[0]) +
           " + threadIdx.x; gputune_c < " + std::to_string(width(s) * strips) +
           "; gputune_c += " + std::to_string(threads_[0] * threads_[1]) + ") {\n";
    out += "      const int gputune_tx = gputune_c % " + w + offset(-halo[0]) + ";\n";
    if (strip == 1) {
      out += "      const int gputune_ty = gputune_c / " + w + offset(-halo[1]) + ";\n";
    } else {
      out += "      const int gputune_ty0 = gputune_c / " + w + " * " + std::to_string(strip) +
             offset(-halo[1]) + ";\n";
      out += "#pragma unroll\n      for (int gputune_k = 0; gputune_k < " + std::to_string(strip) +
             "; ++gputune_k) {\n";
      out += "      const int gputune_ty = gputune_ty0 + gputune_k;\n";
      if (height(s) % strip != 0) {
        out += "      if (gputune_ty >= " + std::to_string(block_[1] + halo[1]) + ") break;\n";
      }
    }
    // A halo cell is computed only where the naive launch has a thread for it: the kernel's
    // guards leave out the threads past the grid's end, the launch has none before its start.
    std::string outside;
    for (int d = 0; d < 2; ++d) {
      if (halo[d] == 0) continue;
      const std::string axis = d == 0 ? "x" : "y";
      const std::string extent = std::to_string(block_[d]);
      const std::string id = "(long long)blockIdx." + axis + " * " + extent + " + gputune_t" + axis;
      outside += std::string(outside.empty() ? "" : " || ") + id + " < 0 || " + id +
                 " >= (long long)gridDim." + axis + " * " + extent;
    }
    if (!outside.empty()) out += "      if (!gputune_inner && (" + outside + ")) continue;\n";
    if (uses_tile) {
      out += "      const bool gputune_in_tile = gputune_tx >= 0 && gputune_tx < " +
             std::to_string(block_[0]) + " && gputune_ty >= 0 && gputune_ty < " +
             std::to_string(block_[1]) + ";\n";
    }
    out += "      [&]() " + body + "();\n";
    out += std::string(strip == 1 ? "" : "      }\n") + "    }\n  }\n";
    return out;
  }

  const ParsedKernel& kernel_;
  const std::vector<FusionStage>& stages_;
  const FusionPlan& plan_;
  std::array<uint32_t, 3> block_;    // the tile: the naive launch's block
  std::array<uint32_t, 2> threads_;  // the fused launch's block: the tile over the thread merges
  std::array<int, 2> widest_halo_{0, 0};
};

class Fuse : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = "fuse takes no target; it fuses the leading launches of the sequence";
      return verdict;
    }
    const FusionAnalysis analysis = analyse_fusion(kernel);
    const FusionFacts& facts = analysis.facts;
    if (kernel.unit().launches.size() < 2) {
      verdict.reason = "the spec has one launch; fusion needs a sequence (`launches:`)";
      return verdict;
    }
    if (facts.fusable < 2) {
      verdict.reason = "the first two launches do not fuse: " + analysis.refusal_reason;
      if (!analysis.refusal_place.text.empty()) {
        verdict.reason += " (`" + analysis.refusal_place.text + "`)";
      }
      verdict.places.push_back(analysis.refusal_place);
      return verdict;
    }
    verdict.applies = true;
    verdict.reason = "fuses up to the first " + std::to_string(facts.fusable) + " launches";
    if (!facts.refusal.empty()) verdict.reason += " (the next: " + facts.refusal + ")";
    for (int s = 0; s < facts.fusable; ++s) {
      verdict.places.push_back(kernel.place(analysis.stages[s].function));
    }
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override { return knobs.fuse >= 2; }

  std::string key(const SourceKnobs& knobs) const override {
    // The merges it takes or refuses beside it are part of the key.
    return "fuse=" + std::to_string(knobs.fuse) + "," + std::to_string(knobs.thread_merge_x) + "," +
           std::to_string(knobs.thread_merge_y) + "," + std::to_string(knobs.block_merge_x) + "," +
           std::to_string(knobs.block_merge_y) + "," + std::to_string(knobs.stage_shared);
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    const SourcePlace file{kernel.unit().file_name, 0, 0, ""};
    if (knobs.block_merge_x != 1 || knobs.block_merge_y != 1 || knobs.stage_shared != 0) {
      return {false, "",
              refusal(file, kKnob,
                      "fusion does not combine with block_merge or stage_shared (each fused "
                      "stage's threads loop over its tile and halo, already in shared memory)")};
    }
    const FusionAnalysis analysis = analyse_fusion(kernel);
    const int launches = static_cast<int>(kernel.unit().launches.size());
    if (knobs.fuse > launches) {
      return {false, "",
              refusal(file, kKnob,
                      "fuse " + std::to_string(knobs.fuse) + " asks for more launches than the " +
                          std::to_string(launches) + " of the sequence")};
    }
    const FusionPlan* plan = analysis.facts.plan(knobs.fuse);
    if (!plan) {
      return {false, "", refusal(analysis.refusal_place, kKnob, analysis.refusal_reason)};
    }
    const std::array<uint32_t, 3>& tile = analysis.stages[0].binding->block;
    for (const auto& [axis, factor, extent] :
         {std::tuple{"x", knobs.thread_merge_x, tile[0]}, {"y", knobs.thread_merge_y, tile[1]}}) {
      if (factor < 1 || extent % factor != 0) {
        return {false, "",
                refusal(file, kKnob,
                        std::string("thread_merge_") + axis + " = " + std::to_string(factor) +
                            " does not divide the tile's " + axis + " extent " +
                            std::to_string(extent))};
      }
    }
    try {
      return {true, kernel.unit().text + FusedText(kernel, analysis, *plan, knobs).text(), ""};
    } catch (const Failure& failure) {
      return {false, "", failure.message};
    }
  }
};

// First: the other knobs apply to the kernels as written (and the fused one after it).
const TransformationRegistrar kRegistrar{1, std::make_unique<Fuse>()};

}  // namespace
}  // namespace gputune::engine
