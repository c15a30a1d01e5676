// stage_shared: the method's coalescing by staging. An uncoalesced global access whose index is
// c*threadIdx.x + threadIdx.y + (block ids and invariants) touches, over the block, By words in
// a row for each of its Bx threads along x: the naive thread (a, b) touches word R + c*a + b.
// The block's tile of Bx x By words goes through shared memory: thread t = ty*Bx + tx of the
// block loads (or stores) word (t / By, t % By), so neighbouring threads touch neighbouring
// words, each under the naive thread's own guard; a barrier separates that from the threads'
// own reads (writes) of tile[threadIdx.x][threadIdx.y]. The naive transpose becomes the tiled
// one (pad_shared then pads the tile). Rank 5: before pad_shared, on the user's text.
#include "engine/stage_shared.h"

#include <clang/AST/Attr.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <set>

#include "engine/call_facts.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "stage_shared";
// The shared memory a kernel may declare statically (48 KiB on every GPU since Fermi).
constexpr uint64_t kStaticSharedBytes = 48 * 1024;

// Why stage_shared leaves an uncoalesced access alone ("" where it stages it); `skip`: the rule
// says it would not pay, rather than that it cannot be done.
struct Obstacle {
  std::string why;
  bool skip = false;
};

bool has_return(const clang::Stmt* statement) {
  return any_node(statement, [](const clang::Stmt* n) { return llvm::isa<clang::ReturnStmt>(n); });
}

Obstacle obstacle(const ParsedKernel& kernel, const std::vector<Access>& all,
                  const Access& access) {
  if (access.indices.size() != 1) {
    return {"a multi-dimensional access: staging handles a single subscript"};
  }
  if (!access.loops.empty()) {
    return {
        "it is in a loop: staging a loop's accesses (a tile per strip of iterations) is not "
        "implemented"};
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
  if (!kernel.macro_name(access.expression->getBeginLoc()).empty() ||
      !kernel.file_range(access.expression->getSourceRange()).isValid()) {
    return {"it is written in a macro's body"};
  }
  if (!access.array_variable || !llvm::isa<clang::ParmVarDecl>(access.array_variable)) {
    return {"its pointer is not one of the kernel's parameters"};
  }
  const clang::Stmt* body = access.kernel->getBody();
  for (const clang::Stmt* statement : body->children()) {
    if (statement == access.top_statement) break;
    if (has_return(statement)) {
      return {"a return before " + kernel.place(statement).str() +
              " would keep threads from the barrier staging needs"};
    }
  }
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
  if (access.write && access.read) {
    return {"it is read and written (`+=`, `++`): staging moves the write after a barrier"};
  }
  if (access.write && has_return(access.top_statement)) {
    return {"a return in " + kernel.place(access.top_statement).str() +
            " would keep threads from the barrier after it"};
  }
  return {};
}

bool candidate(const Access& access) { return coalescing(access) == Coalescing::kUncoalesced; }

std::string indentation(const ParsedKernel& kernel, const clang::Stmt* statement) {
  const clang::SourceLocation begin = kernel.sources().getExpansionLoc(statement->getBeginLoc());
  const unsigned column = kernel.sources().getExpansionColumnNumber(begin);
  return std::string(column > 0 ? column - 1 : 0, ' ');
}

// Where the text after a statement goes: after its semicolon for an expression.
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

const char* comparison_text(clang::BinaryOperatorKind op) {
  return clang::BinaryOperator::getOpcodeStr(op).data();
}

class StageShared : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    if (!knob.target.empty()) {
      verdict.reason = "stage_shared takes no target";
      return verdict;
    }
    const std::vector<Access> accesses = find_accesses(kernel);
    std::string stages, leaves;
    for (const Access& access : accesses) {
      if (!candidate(access)) continue;
      const Obstacle why = obstacle(kernel, accesses, access);
      const SourcePlace place = kernel.place(access.expression);
      if (why.why.empty()) {
        stages += (stages.empty() ? "" : ", ") + place.text + " (" + place.str() + ")";
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

  bool active(const SourceKnobs& knobs) const override { return knobs.stage_shared != 0; }

  std::string key(const SourceKnobs& knobs) const override {
    std::string key = "stage_shared=" + std::to_string(knobs.stage_shared);
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
    if (knobs.stage_shared != 1) {
      return refuse(
          {kernel.unit().file_name, 0, 0, ""},
          "expected 0 (as written) or 1 (stage), not " + std::to_string(knobs.stage_shared));
    }
    const std::vector<Access> accesses = find_accesses(kernel);
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    std::string first_obstacle;
    SourcePlace first_place{kernel.unit().file_name, 0, 0, ""};
    std::map<std::string, std::string> tiles;  // kernel, array, index -> tile name
    std::set<std::string> names;
    int staged = 0;
    for (const Access& access : accesses) {
      if (!candidate(access)) continue;
      const Obstacle why = obstacle(kernel, accesses, access);
      if (!why.why.empty()) {
        if (first_obstacle.empty()) {
          first_obstacle = why.why;
          first_place = user.place(access.expression);
        }
        continue;
      }
      const std::string function = access.kernel->getNameAsString();
      const auto block = knobs.naive_blocks.find(function);
      if (block == knobs.naive_blocks.end() || block->second[0] == 0) {
        return refuse(user.place(access.kernel),
                      block == knobs.naive_blocks.end()
                          ? "the launch of " + function + " is not known, so neither is its tile"
                          : function +
                                " is launched with several block shapes: its tile's "
                                "extent is not one");
      }
      if (block->second[2] != 1) {
        return refuse(user.place(access.kernel),
                      "the block of " + function + " is three-dimensional; tiles are 2-D");
      }
      const uint32_t bx = block->second[0], by = block->second[1];
      const uint64_t bytes =
          uint64_t{bx} * by *
          kernel.context()
              .getTypeSizeInChars(access.array_variable->getType()->getPointeeType())
              .getQuantity();
      if (bytes > kStaticSharedBytes) {
        return refuse(user.place(access.expression),
                      "its tile of " + std::to_string(bx) + " x " + std::to_string(by) +
                          " elements needs " + std::to_string(bytes) +
                          " bytes of shared memory, above the 49152 a block declares statically");
      }
      const Affine& index = *access.indices[0];
      const std::string key =
          function + '\0' + access.array + '\0' + index.text() + '\0' + (access.write ? "w" : "r");
      std::string& tile = tiles[key];
      const bool fresh = tile.empty();
      if (fresh) {
        tile = "gputune_" + access.array + "_tile";
        for (int n = 2; names.count(tile); ++n) {
          tile = "gputune_" + access.array + "_tile" + std::to_string(n);
        }
        names.insert(tile);
      }
      rewriter.ReplaceText(kernel.file_range(access.expression->getSourceRange()),
                           tile + "[threadIdx.x][threadIdx.y]");
      ++staged;
      if (!fresh) continue;
      // The naive thread (gputune_a, gputune_b)'s index and guard.
      const Spelling spelling = [bx, by](const std::string& name) -> std::string {
        if (name == "threadIdx.x") return "gputune_a";
        if (name == "threadIdx.y") return "gputune_b";
        if (name == "blockDim.x") return std::to_string(bx);
        if (name == "blockDim.y") return std::to_string(by);
        if (name == "blockDim.z") return "1";
        return "(long long)" + name;
      };
      std::string guard;
      for (const Comparison& c : *access.guard) {
        guard += (guard.empty() ? "" : " && ") + c.left.text(spelling) + " " +
                 comparison_text(c.op) + " " + c.right.text(spelling);
      }
      const clang::QualType pointee = access.array_variable->getType()->getPointeeType();
      const std::string element =
          pointee.getUnqualifiedType().getAsString(kernel.context().getPrintingPolicy());
      const std::string indent = indentation(kernel, access.top_statement);
      const std::string in = indent + "  ";
      const std::string element_ref = access.array + "[" + index.text(spelling) + "]";
      const std::string tile_ref = tile + "[gputune_a][gputune_b]";
      const std::string copy =
          (guard.empty() ? "" : "if (" + guard + ")\n" + in + "  ") +
          (access.write ? element_ref + " = " + tile_ref : tile_ref + " = " + element_ref) + ";\n";
      const std::string cooperative =
          "{  // stage_shared: thread t of the block " +
          std::string(access.write ? "stores" : "loads") + " word (t / " + std::to_string(by) +
          ", t % " + std::to_string(by) + ") of the tile\n" + in +
          "const int gputune_t = threadIdx.y * " + std::to_string(bx) + " + threadIdx.x;\n" + in +
          "const long long gputune_a = gputune_t / " + std::to_string(by) + ";\n" + in +
          "const long long gputune_b = gputune_t % " + std::to_string(by) + ";\n" + in + copy +
          indent + "}\n";
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
    if (staged == 0) {
      return refuse(first_place, first_obstacle.empty()
                                     ? "every global access is coalesced, uniform or not affine"
                                     : first_obstacle);
    }
    const clang::RewriteBuffer* buffer = rewriter.getRewriteBufferFor(kernel.main_file());
    return {true, std::string(buffer->begin(), buffer->end()), ""};
  }
};

const TransformationRegistrar kRegistrar{5, std::make_unique<StageShared>()};

}  // namespace

std::string stage_shared_decision(const ParsedKernel& kernel, const std::vector<Access>& all,
                                  const Access& access) {
  const Obstacle why = obstacle(kernel, all, access);
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
