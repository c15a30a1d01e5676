// unroll: `#pragma unroll N` on each innermost loop of the transformed kernels, or on one loop
// named by its C++ label or its line. N = 0 leaves a loop as written; N = 1 forbids unrolling.
// Rank 40: after thread merge, so the copies of a replicated loop get the pragma too; targets
// are resolved in the user's text (ParsedKernel::original) and found again in the rewritten one.
#include <clang/AST/Attr.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "engine/call_facts.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

constexpr const char* kKnob = "unroll";

struct Loop {
  const clang::Stmt* statement = nullptr;  // for, range-for, while or do
  const clang::FunctionDecl* kernel = nullptr;
  const clang::LabelStmt* label = nullptr;            // `k_loop:` right before it
  const clang::AttributedStmt* attributes = nullptr;  // its #pragma lines, if any
  bool innermost = true;
};

bool is_loop(const clang::Stmt* statement) {
  return llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(
      statement);
}

// Every loop of the kernels, in the order of the text.
class LoopCollector {
 public:
  explicit LoopCollector(const ParsedKernel& kernel) {
    for (const clang::FunctionDecl* function : kernel.kernels()) {
      kernel_ = function;
      walk(function->getBody(), nullptr, nullptr);
    }
  }
  std::vector<Loop> loops;

 private:
  // Whether `statement` holds a loop.
  bool walk(const clang::Stmt* statement, const clang::LabelStmt* label,
            const clang::AttributedStmt* attributes) {
    // A staged tile's load keeps its own full unrolling.
    if (!statement || is_block_level(statement)) return false;
    if (const auto* labelled = llvm::dyn_cast<clang::LabelStmt>(statement)) {
      return walk(labelled->getSubStmt(), labelled, nullptr);
    }
    if (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(statement)) {
      return walk(attributed->getSubStmt(), label, attributed);
    }
    const bool loop = is_loop(statement);
    const size_t index = loops.size();
    if (loop) loops.push_back({statement, kernel_, label, attributes, true});
    bool inner = false;
    for (const clang::Stmt* child : statement->children()) inner |= walk(child, nullptr, nullptr);
    if (loop) loops[index].innermost = !inner;
    return loop || inner;
  }
  const clang::FunctionDecl* kernel_ = nullptr;
};

bool is_line(const std::string& target) {
  return !target.empty() &&
         std::all_of(target.begin(), target.end(), [](unsigned char c) { return std::isdigit(c); });
}

int line_of(const ParsedKernel& kernel, clang::SourceLocation location) {
  return kernel.place(location).line;
}

// The loops a target names: a label, or a line holding the loop, its label or its pragma.
std::vector<const Loop*> resolve(const ParsedKernel& kernel, const std::vector<Loop>& loops,
                                 const std::string& target) {
  std::vector<const Loop*> found;
  for (const Loop& loop : loops) {
    bool named = false;
    if (target.empty()) {
      named = loop.innermost;
    } else if (is_line(target)) {
      const int line = std::stoi(target);
      named = line_of(kernel, loop.statement->getBeginLoc()) == line ||
              (loop.label && line_of(kernel, loop.label->getBeginLoc()) == line) ||
              (loop.attributes && line_of(kernel, loop.attributes->getBeginLoc()) == line);
    } else {
      named = loop.label && loop.label->getName() == target;
    }
    if (named) found.push_back(&loop);
  }
  return found;
}

std::string describe(const ParsedKernel& kernel, const Loop& loop) {
  std::string text = "line " + std::to_string(line_of(kernel, loop.statement->getBeginLoc()));
  if (loop.label) text = std::string(loop.label->getName()) + " at " + text;
  return text + (loop.innermost ? " (innermost)" : " (outer)");
}

std::string kernel_names(const ParsedKernel& kernel) {
  std::string names;
  for (const clang::FunctionDecl* function : kernel.kernels()) {
    names += (names.empty() ? "" : ", ") + function->getNameAsString();
  }
  return names;
}

// Why no pragma can go before this loop, or "".
std::string obstacle(const ParsedKernel& kernel, const Loop& loop) {
  const std::string macro = kernel.macro_name(loop.statement->getBeginLoc());
  if (!macro.empty()) {
    return "the loop is written inside macro " + macro +
           "'s expansion, where no #pragma can be placed";
  }
  return "";
}

// The #pragma unroll or nounroll the loop has already, if any.
const clang::LoopHintAttr* unroll_hint(const Loop& loop) {
  if (!loop.attributes) return nullptr;
  for (const clang::Attr* attribute : loop.attributes->getAttrs()) {
    const auto* hint = llvm::dyn_cast<clang::LoopHintAttr>(attribute);
    if (hint && (hint->getSemanticSpelling() == clang::LoopHintAttr::Pragma_unroll ||
                 hint->getSemanticSpelling() == clang::LoopHintAttr::Pragma_nounroll)) {
      return hint;
    }
  }
  return nullptr;
}

// The user's name of a variable that thread merge copied: it names the copies
// "<name>_gputune<copy>", with underscores appended where that name was taken.
llvm::StringRef user_name(llvm::StringRef name) {
  constexpr llvm::StringLiteral kCopy = "_gputune";
  const size_t suffix = name.rfind(kCopy);
  if (suffix == llvm::StringRef::npos || suffix == 0) return name;
  const llvm::StringRef copy = name.substr(suffix + kCopy.size()).rtrim('_');
  if (copy.empty() ||
      !std::all_of(copy.begin(), copy.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return name;
  }
  return name.substr(0, suffix);
}

// A loop's header, its tokens with the user's names: what identifies it again after earlier
// steps rewrote the text around it (thread merge copies loops and renames the copies'
// variables; block merge wraps them).
std::string signature(const ParsedKernel& kernel, const Loop& loop) {
  const clang::SourceManager& sources = kernel.sources();
  clang::SourceLocation begin = loop.statement->getBeginLoc(), end;
  std::string header_prefix;
  if (const auto* loop_do = llvm::dyn_cast<clang::DoStmt>(loop.statement)) {
    begin = loop_do->getWhileLoc();
    end = clang::Lexer::getLocForEndOfToken(sources.getExpansionLoc(loop_do->getRParenLoc()), 0,
                                            sources, kernel.language());
    header_prefix = "do ... ";
  } else if (const auto* loop_for = llvm::dyn_cast<clang::ForStmt>(loop.statement)) {
    end = loop_for->getBody()->getBeginLoc();
  } else if (const auto* loop_while = llvm::dyn_cast<clang::WhileStmt>(loop.statement)) {
    end = loop_while->getBody()->getBeginLoc();
  } else {
    end = llvm::cast<clang::CXXForRangeStmt>(loop.statement)->getBody()->getBeginLoc();
  }
  const unsigned from = sources.getFileOffset(sources.getExpansionLoc(begin));
  const unsigned to = sources.getFileOffset(sources.getExpansionLoc(end));
  const llvm::StringRef buffer = sources.getBufferData(kernel.main_file());
  clang::Lexer lexer(sources.getLocForStartOfFile(kernel.main_file()), kernel.language(),
                     buffer.begin(), buffer.begin() + from, buffer.end());
  std::string header = loop.kernel->getNameAsString() + ": " + header_prefix;
  clang::Token token;
  for (bool more = true; more;) {
    more = !lexer.LexFromRawLexer(token);
    if (token.is(clang::tok::eof) || sources.getFileOffset(token.getLocation()) >= to) break;
    const llvm::StringRef spelling(sources.getCharacterData(token.getLocation()),
                                   token.getLength());
    header += " " + (token.is(clang::tok::raw_identifier) ? user_name(spelling) : spelling).str();
  }
  return header;
}

class Unroll : public Transformation {
 public:
  std::vector<std::string> knobs() const override { return {kKnob}; }

  KnobVerdict verdict(const ParsedKernel& kernel, const KnobName& knob) const override {
    KnobVerdict verdict;
    const std::vector<Loop> loops = LoopCollector(kernel).loops;
    std::vector<const Loop*> named = resolve(kernel, loops, knob.target);
    if (named.empty()) {
      if (knob.target.empty()) {
        verdict.reason = "no loop in " + kernel_names(kernel);
      } else {
        verdict.reason =
            "no loop " +
            (is_line(knob.target) ? "at line " + knob.target : "labelled '" + knob.target + "'") +
            " in " + kernel_names(kernel) + "; its loops: ";
        for (const Loop& loop : loops) {
          verdict.reason += (&loop == &loops.front() ? "" : ", ") + describe(kernel, loop);
          verdict.places.push_back(kernel.place(loop.statement));
        }
        if (loops.empty()) verdict.reason += "none";
      }
      return verdict;
    }
    std::string applies, refused;
    std::vector<SourcePlace> applies_places, refused_places;
    for (const Loop* loop : named) {
      const std::string why = obstacle(kernel, *loop);
      std::string& list = why.empty() ? applies : refused;
      list += (list.empty() ? "" : "; ") + describe(kernel, *loop);
      if (!why.empty()) list += ": " + kernel.place(loop->statement).str() + ": " + why;
      (why.empty() ? applies_places : refused_places).push_back(kernel.place(loop->statement));
    }
    verdict.applies = !applies.empty();
    verdict.reason = verdict.applies ? "#pragma unroll N on " + applies : "";
    if (!refused.empty()) {
      verdict.reason += (verdict.applies ? "; leaves " : "") + refused;
    }
    verdict.places = applies_places;
    verdict.places.insert(verdict.places.end(), refused_places.begin(), refused_places.end());
    return verdict;
  }

  bool active(const SourceKnobs& knobs) const override {
    return std::any_of(knobs.unroll.begin(), knobs.unroll.end(),
                       [](const auto& entry) { return entry.second != 0; });
  }

  std::string key(const SourceKnobs& knobs) const override {
    std::string key = "unroll=";
    for (const auto& [target, count] : knobs.unroll) {
      key += target + ":" + std::to_string(count) + ",";
    }
    return key;
  }

  Rewrite apply(const ParsedKernel& kernel, const SourceKnobs& knobs) const override {
    const ParsedKernel& original = kernel.original();
    const std::vector<Loop> original_loops = LoopCollector(original).loops;
    const std::vector<Loop> loops =
        &original == &kernel ? original_loops : LoopCollector(kernel).loops;
    // The count of each loop of `kernel`: every innermost loop's first, a named loop's after.
    std::map<const Loop*, int> counts;
    std::vector<std::pair<std::string, int>> entries = knobs.unroll;
    std::stable_partition(entries.begin(), entries.end(),
                          [](const auto& entry) { return entry.first.empty(); });
    for (const auto& [target, count] : entries) {
      const std::string knob = target.empty() ? kKnob : std::string(kKnob) + "(" + target + ")";
      const SourcePlace file_place{original.unit().file_name, 0, 0, ""};
      if (count < 0) {
        const std::string what = "the count must be 0 (leave the loop as written) or more, not ";
        return {false, "", refusal(file_place, knob, what + std::to_string(count))};
      }
      const std::vector<const Loop*> named = resolve(original, original_loops, target);
      if (named.empty() && count == 0) continue;
      if (named.empty()) {
        return {false, "", refusal(file_place, knob, verdict(original, {kKnob, target}).reason)};
      }
      for (const Loop* loop : named) {
        const std::string why = obstacle(original, *loop);
        if (!why.empty()) {
          if (target.empty() || count == 0) continue;  // the innermost loops the text allows
          return {false, "", refusal(original.place(loop->statement), knob, why)};
        }
        std::vector<const Loop*> now = find_again(original, original_loops, *loop, kernel, loops);
        // A loop the earlier steps rewrote beyond recognition keeps its text under the knob
        // for every loop (the pragma is only a hint); a named loop is refused.
        if (now.empty() && target.empty()) continue;
        if (now.empty()) {
          return {false, "",
                  refusal(original.place(loop->statement), knob,
                          "the earlier transformations rewrote this loop so that it cannot be "
                          "told apart from the others; label it")};
        }
        for (const Loop* copy : now) counts[copy] = count;
      }
    }
    clang::Rewriter rewriter(kernel.sources(), kernel.language());
    for (const auto& [loop, count] : counts) {
      if (count == 0) continue;
      const std::string failure = place_pragma(kernel, *loop, count, &rewriter);
      if (!failure.empty()) {
        return {false, "", refusal(kernel.place(loop->statement), kKnob, failure)};
      }
    }
    return {true, rewritten_source(kernel, rewriter), ""};
  }

 private:
  // The loops of `kernel` that are `loop` of the original (its copies, after thread merge):
  // those with its label, or else its header where no other loop of the original shares it.
  static std::vector<const Loop*> find_again(const ParsedKernel& original,
                                             const std::vector<Loop>& original_loops,
                                             const Loop& loop, const ParsedKernel& kernel,
                                             const std::vector<Loop>& loops) {
    std::vector<const Loop*> found;
    if (&original == &kernel) return {&loop};
    if (loop.label) {
      found = resolve(kernel, loops, std::string(loop.label->getName()));
      if (!found.empty()) return found;
    }
    const std::string wanted = signature(original, loop);
    std::vector<const Loop*> twins;  // the original's loops with the same header
    for (const Loop& other : original_loops) {
      if (signature(original, other) == wanted) twins.push_back(&other);
    }
    for (const Loop& other : loops) {
      if (signature(kernel, other) == wanted) found.push_back(&other);
    }
    if (twins.size() == 1) return found;
    // Loops with one header: the n-th is the n-th where their number did not change.
    if (found.size() != twins.size()) return {};
    const size_t index = std::find(twins.begin(), twins.end(), &loop) - twins.begin();
    return {found[index]};
  }

  // Puts `#pragma unroll count` before the loop, on its own line at the loop's indentation, or
  // in place of the loop's #pragma unroll; why not where it cannot.
  static std::string place_pragma(const ParsedKernel& kernel, const Loop& loop, int count,
                                  clang::Rewriter* rewriter) {
    const std::string pragma = "#pragma unroll " + std::to_string(count);
    const clang::SourceManager& sources = kernel.sources();
    const llvm::StringRef buffer = sources.getBufferData(kernel.main_file());
    if (const clang::LoopHintAttr* hint = unroll_hint(loop)) {
      const clang::CharSourceRange range = kernel.file_range(hint->getRange());
      if (range.isInvalid() || hint->getLocation().isMacroID()) {
        return "its #pragma unroll is written inside a macro, where it cannot be replaced";
      }
      // Back from the pragma's name over `#pragma` to the `#`.
      size_t begin = sources.getFileOffset(range.getBegin());
      while (begin > 0 && std::isspace(static_cast<unsigned char>(buffer[begin - 1])) &&
             buffer[begin - 1] != '\n') {
        --begin;
      }
      const llvm::StringRef before = buffer.substr(0, begin).rtrim(" \t");
      if (!before.ends_with("pragma")) return "its #pragma unroll is written as _Pragma";
      begin = before.size() - 6;
      while (begin > 0 && (buffer[begin - 1] == ' ' || buffer[begin - 1] == '\t')) --begin;
      if (begin == 0 || buffer[begin - 1] != '#') return "its #pragma unroll is written as _Pragma";
      --begin;
      const size_t end = sources.getFileOffset(range.getEnd());
      rewriter->ReplaceText(
          sources.getLocForStartOfFile(kernel.main_file()).getLocWithOffset(begin),
          static_cast<unsigned>(end - begin), pragma);
      return "";
    }
    const clang::SourceLocation start = loop.statement->getBeginLoc();
    if (start.isMacroID()) return obstacle(kernel, loop);
    const size_t offset = sources.getFileOffset(start);
    size_t line_start = offset;
    while (line_start > 0 && buffer[line_start - 1] != '\n') --line_start;
    size_t indent_end = line_start;
    while (indent_end < offset && (buffer[indent_end] == ' ' || buffer[indent_end] == '\t')) {
      ++indent_end;
    }
    const std::string indent = buffer.substr(line_start, indent_end - line_start).str();
    if (indent_end == offset) {
      rewriter->InsertTextBefore(start, pragma + "\n" + indent);
      return "";
    }
    // Something precedes the loop on its line (a label, `else`, a brace): the pragma and the
    // loop move to lines of their own, at the indentation of that line.
    size_t blank = offset;
    while (blank > indent_end && (buffer[blank - 1] == ' ' || buffer[blank - 1] == '\t')) --blank;
    rewriter->ReplaceText(start.getLocWithOffset(-static_cast<int>(offset - blank)),
                          static_cast<unsigned>(offset - blank),
                          "\n" + indent + pragma + "\n" + indent);
    return "";
  }
};

const TransformationRegistrar kRegistrar{40, std::make_unique<Unroll>()};

}  // namespace
}  // namespace gputune::engine
