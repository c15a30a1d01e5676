#include "engine/merge_walk.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>

namespace gputune::engine {
namespace {

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

// `if (cond) return;` or `if (cond) { ...; return; }`, without else.
bool is_early_return(const clang::Stmt* node) {
  const auto* branch = llvm::dyn_cast<clang::IfStmt>(node);
  if (!branch || branch->getElse() || branch->getInit() || branch->getConditionVariable()) {
    return false;
  }
  const clang::Stmt* last = branch->getThen();
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(last)) {
    if (block->body_empty()) return false;
    last = block->body_back();
  }
  const auto* ret = llvm::dyn_cast<clang::ReturnStmt>(last);
  return ret && !ret->getRetValue();
}

}  // namespace

int Factors::index(Dims dims, int copy, Dims dim) const {
  if (!(dims & dim)) return 0;
  if (dim == kDimX) return copy % x;
  return dims & kDimX ? copy / x : copy;
}

int Factors::copy(Dims dims, int kx, int ky) const {
  int copy = dims & kDimY ? ky : 0;
  if (dims & kDimX) copy = copy * x + kx;
  return copy;
}

std::optional<std::string> ThreadMergeWalk::CopyRules::builtin(Builtin builtin,
                                                               char component) const {
  const Dims dim = dim_of(component) & walk_.dep_.merged();
  if (!dim) return std::nullopt;
  const std::string c(1, component);
  if (builtin == Builtin::kBlockDim) {
    return "(blockDim." + c + " * " +
           std::to_string(dim == kDimX ? walk_.factors_.x : walk_.factors_.y) + ")";
  }
  if (builtin != Builtin::kThreadIdx) return std::nullopt;
  if (!(dims_ & dim)) throw MergeRefusal{"internal: a copy without its dimension"};
  return walk_.virtual_thread(component, walk_.factors_.index(dims_, copy_, dim));
}

std::optional<std::string> ThreadMergeWalk::CopyRules::use(const clang::VarDecl* variable) const {
  const Dims dims = walk_.dep_.dims(variable);
  if (!dims) return std::nullopt;
  if (dims & ~dims_) throw MergeRefusal{"internal: a copy without its variable's dimension"};
  return walk_.name(variable, walk_.factors_.project(dims_, copy_, dims));
}

std::optional<std::string> ThreadMergeWalk::CopyRules::expression(const clang::Expr* expr) const {
  const auto found = walk_.hoisted_.find(expr);
  if (found == walk_.hoisted_.end()) return std::nullopt;
  return found->second.names[walk_.factors_.project(dims_, copy_, found->second.dims)];
}

ThreadMergeWalk::ThreadMergeWalk(KernelText& text, const CallFacts& facts,
                                 const IndexDependence& dependence, Factors factors,
                                 bool consecutive)
    : text_(text), facts_(facts), dep_(dependence), factors_(factors), consecutive_(consecutive) {}

const std::string& ThreadMergeWalk::name(const clang::VarDecl* variable, int copy) {
  std::vector<std::string>& names = names_[variable];
  if (names.empty()) {
    for (int c = 0; c < factors_.count(dep_.dims(variable)); ++c) {
      names.push_back(text_.fresh(variable->getNameAsString() + "_gputune" + std::to_string(c)));
    }
  }
  return names.at(copy);
}

std::string ThreadMergeWalk::virtual_thread(char component, int k) const {
  const std::string id = std::string("threadIdx.") + component;
  if (consecutive_) {
    const std::string n = std::to_string(component == 'x' ? factors_.x : factors_.y);
    return "(" + id + " * " + n + (k ? " + " + std::to_string(k) : "") + ")";
  }
  if (k == 0) return id;
  const std::string dim = std::string("blockDim.") + component;
  return "(" + id + " + " + (k == 1 ? dim : std::to_string(k) + " * " + dim) + ")";
}

std::string ThreadMergeWalk::guard(Layer& layer, Dims dims, int copy) {
  if (layer.trivial()) return "";
  const Dims common = layer.dims & dims;
  if (common == layer.dims) return layer.preds[factors_.project(dims, copy, layer.dims)];
  if (!common) return "";  // the region's own condition: some copy runs
  const int key = factors_.project(dims, copy, common);
  std::string& name = layer.union_names[{common, key}];
  if (name.empty()) {
    std::vector<std::string> terms;
    for (int c = 0; c < factors_.count(layer.dims); ++c) {
      if (factors_.project(layer.dims, c, common) == key) terms.push_back(layer.preds[c]);
    }
    name = text_.fresh("gputune_u" + std::to_string(next_union_++));
    layer.unions.push_back("bool " + name + " = " + join(terms, " || ") + ";");
  }
  return name;
}

std::string ThreadMergeWalk::any(const Layer& layer) const { return join(layer.preds, " || "); }

void ThreadMergeWalk::refuse(const clang::Stmt* at, const std::string& what) const {
  throw MergeRefusal{refusal(text_.kernel().place(at), text_.knob(), what)};
}

std::string ThreadMergeWalk::body(const clang::CompoundStmt* body) {
  Layer top;
  return compound(body, top, true);
}

std::string ThreadMergeWalk::compound(const clang::CompoundStmt* node, Layer& layer, bool tail) {
  const std::vector<const clang::Stmt*> list(node->body_begin(), node->body_end());
  const Span whole = text_.span(node->getSourceRange());
  return "{" + children(list, 0, whole.begin + 1, whole.end - 1, layer, tail) + "}";
}

// The text from `start` to `end` with the statements of `list` from `from` on walked. `tail`:
// they end the kernel, so that a copy may leave early by a dependent `if (...) return;`.
std::string ThreadMergeWalk::children(const std::vector<const clang::Stmt*>& list, size_t from,
                                      unsigned start, unsigned end, Layer& layer, bool tail) {
  std::string out;
  unsigned at = start;
  for (size_t i = from; i < list.size(); ++i) {
    const clang::Stmt* child = list[i];
    const Span extent = text_.extent(child);
    out += text_.text({at, extent.begin});
    const std::string indent = text_.indent_at(extent.begin);
    at = extent.end;
    if (tail && is_early_return(child) && dep_.control(child)) {
      const std::vector<const clang::Stmt*> rest(list.begin() + i + 1, list.end());
      out += early_return(llvm::cast<clang::IfStmt>(child), rest, extent.end, layer);
      at = rest.empty() ? extent.end : text_.extent(rest.back()).end;
      break;
    }
    const bool last_return = i + 1 == list.size() && llvm::isa<clang::ReturnStmt>(child);
    const bool plain_return =
        is_early_return(child) &&
        llvm::isa<clang::ReturnStmt>(llvm::cast<clang::IfStmt>(child)->getThen());
    if (tail && (last_return || plain_return)) {
      // Leaving the kernel at its end, or all copies together: as written.
      out += text_.render(child, CopyRules(*this, 0, 0));
    } else {
      out += statement(child, layer, indent);
    }
  }
  return out + text_.text({at, end});
}

// `if (c) { ...; return; } rest` as `if (c) {...} if (!c) { rest }` per copy: the copies that
// return skip the rest of the kernel.
std::string ThreadMergeWalk::early_return(const clang::IfStmt* branch,
                                          const std::vector<const clang::Stmt*>& rest,
                                          unsigned after, Layer& layer) {
  const std::string indent = text_.indent_at(text_.extent(branch).begin);
  if (facts_.has_barrier(branch)) {
    refuse(facts_.first_barrier(branch), "__syncthreads() under a condition that depends on " +
                                             dims_text("threadIdx", dep_.control(branch)) +
                                             " (line " +
                                             std::to_string(text_.kernel().place(branch).line) +
                                             "): not every thread of the block would reach it");
  }
  std::string declarations;
  Layer taken = predicates(branch->getCond(), layer, false, nullptr, declarations, indent);
  std::string out = declarations;
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(branch->getThen());
      block && block->size() > 1) {
    const std::vector<const clang::Stmt*> list(block->body_begin(), block->body_end() - 1);
    const unsigned begin = text_.span(block->getSourceRange()).begin + 1;
    const std::string then = children(list, 0, begin, text_.extent(list.back()).end, taken, false);
    for (const std::string& line : taken.unions) out += line + "\n" + indent;
    out += "if (" + any(taken) + ") {" + then + "\n" + indent + "}\n" + indent;
  }
  ++stats_.predicated;
  if (rest.empty()) return rtrim(out);
  std::string others;
  Layer stays = predicates(branch->getCond(), layer, true, &taken, others, indent);
  const std::string text = children(rest, 0, after, text_.extent(rest.back()).end, stays, true);
  out += others;
  for (const std::string& line : stays.unions) out += line + "\n" + indent;
  return out + "if (" + any(stays) + ") {" + text + "\n" + indent + "}";
}

ThreadMergeWalk::Layer ThreadMergeWalk::predicates(const clang::Expr* cond, Layer& outer,
                                                   bool negate, const Layer* base,
                                                   std::string& declarations,
                                                   const std::string& indent) {
  Layer layer;
  layer.id = next_layer_++;
  layer.line = text_.kernel().place(cond).line;
  const Dims own = dep_.dims(cond);
  layer.dims = outer.dims | own;
  for (int c = 0; c < factors_.count(layer.dims); ++c) {
    const std::string outer_guard =
        outer.trivial() ? "" : outer.preds[factors_.project(layer.dims, c, outer.dims)];
    std::string value;
    if (negate) {
      if (outer_guard.empty()) {
        layer.preds.push_back("!" + base->preds[c]);
        continue;
      }
      value = outer_guard + " && !" + base->preds[c];
    } else {
      const std::string test =
          text_.render_expr(cond, CopyRules(*this, own, factors_.project(layer.dims, c, own)));
      value = outer_guard.empty() ? test : outer_guard + " && (" + test + ")";
    }
    const std::string name = text_.fresh("gputune_p" + std::to_string(next_pred_++));
    declarations += "bool " + name + " = " + value + ";\n" + indent;
    layer.preds.push_back(name);
  }
  return layer;
}

std::string ThreadMergeWalk::region(const clang::Stmt* node, Layer& layer,
                                    const std::string& indent) {
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(node)) {
    return compound(block, layer, false);
  }
  return "{\n" + indent + "  " + statement(node, layer, indent + "  ") + "\n" + indent + "}";
}

std::string ThreadMergeWalk::body_of(const std::string& header, const clang::Stmt* body,
                                     Layer& layer, const std::string& indent) {
  const std::string inner = text_.body_indent(body, indent);
  return text_.attach(header, body, statement(body, layer, inner), inner, indent);
}

// A kept statement's text up to its body, with its own expressions rewritten.
std::string ThreadMergeWalk::header(const clang::Stmt* node, const clang::Stmt* body,
                                    std::vector<const clang::Stmt*> parts) {
  std::vector<Edit> edits;
  const CopyRules shared(*this, 0, 0);
  for (const clang::Stmt* part : parts) {
    if (!part) continue;
    const std::vector<Edit> more = text_.edits(part, shared);
    edits.insert(edits.end(), more.begin(), more.end());
  }
  return text_.render({text_.extent(node).begin, text_.extent(body).begin}, edits);
}

std::string ThreadMergeWalk::statement(const clang::Stmt* node, Layer& layer,
                                       const std::string& indent) {
  if (is_block_level(node)) return text_.text(text_.extent(node));
  if (const auto* block = llvm::dyn_cast<clang::CompoundStmt>(node)) {
    return compound(block, layer, false);
  }
  if (llvm::isa<clang::NullStmt>(node)) return text_.text(text_.extent(node));
  const clang::Stmt* sub = nullptr;
  if (const auto* label = llvm::dyn_cast<clang::LabelStmt>(node)) sub = label->getSubStmt();
  if (const auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(node)) {
    sub = attributed->getSubStmt();
  }
  if (const auto* label = llvm::dyn_cast<clang::SwitchCase>(node)) sub = label->getSubStmt();
  if (sub) {
    const unsigned begin = text_.extent(node).begin, inner = text_.extent(sub).begin;
    return (begin < inner ? text_.text({begin, inner}) : "") + statement(sub, layer, indent);
  }
  if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(node)) {
    return declaration(decls, layer, indent);
  }
  const Dims control = dep_.control(node);
  if (facts_.has_barrier(node) && (!layer.trivial() || control)) {
    const std::string where =
        !layer.trivial() ? "under a condition that depends on " + dims_text("threadIdx", layer.dims)
        : llvm::isa<clang::IfStmt>(node)
            ? "under a condition that depends on " + dims_text("threadIdx", control)
            : "in a loop whose iterations depend on " + dims_text("threadIdx", control);
    refuse(facts_.first_barrier(node),
           "__syncthreads() " + where + " (line " +
               std::to_string(layer.trivial() ? text_.kernel().place(node).line : layer.line) +
               "): not every thread of the block would reach it");
  }
  if (const auto* branch = llvm::dyn_cast<clang::IfStmt>(node)) {
    if (control) return dependent_if(branch, layer, indent);
    std::string out = body_of(
        header(node, branch->getThen(),
               {branch->getInit(), branch->getConditionVariableDeclStmt(), branch->getCond()}),
        branch->getThen(), layer, indent);
    if (const clang::Stmt* otherwise = branch->getElse()) {
      const unsigned then_end = text_.extent(branch->getThen()).end;
      out +=
          body_of(text_.text({then_end, text_.extent(otherwise).begin}), otherwise, layer, indent);
    }
    return out;
  }
  if (is_loop(node) || llvm::isa<clang::SwitchStmt>(node)) {
    if (control || (llvm::isa<clang::SwitchStmt>(node) && dep_.replication(node))) {
      return replicate(node, dep_.replication(node) | control, layer, indent);
    }
    const clang::Stmt* body = nullptr;
    std::vector<const clang::Stmt*> parts;
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(node)) {
      body = loop->getBody();
      parts = {loop->getInit(), loop->getCond(), loop->getInc()};
      if (const auto* init = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit())) {
        for (const clang::Decl* decl : init->decls()) {
          if (const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl)) {
            layer_of_[variable] = layer.id;
          }
        }
      }
    } else if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(node)) {
      body = loop->getBody();
      parts = {loop->getCond()};
    } else if (const auto* choice = llvm::dyn_cast<clang::SwitchStmt>(node)) {
      body = choice->getBody();
      parts = {choice->getInit(), choice->getCond()};
    } else {
      const auto* loop = llvm::cast<clang::DoStmt>(node);
      const Span extent = text_.extent(node), inner = text_.extent(loop->getBody());
      const std::string tail = text_.render({inner.end, extent.end},
                                            text_.edits(loop->getCond(), CopyRules(*this, 0, 0)));
      return body_of(text_.text({extent.begin, inner.begin}), loop->getBody(), layer, indent) +
             tail;
    }
    return body_of(header(node, body, parts), body, layer, indent);
  }
  if (llvm::isa<clang::ReturnStmt>(node)) {
    if (!layer.trivial()) {
      refuse(node, "a return under a condition that depends on " +
                       dims_text("threadIdx", layer.dims) +
                       " (only `if (...) return;` at the kernel's top level is merged)");
    }
    return text_.render(node, CopyRules(*this, 0, 0));
  }
  if (llvm::isa<clang::BreakStmt, clang::ContinueStmt>(node)) {
    return text_.text(text_.extent(node));
  }
  return leaf(node, layer, indent);
}

std::string ThreadMergeWalk::dependent_if(const clang::IfStmt* branch, Layer& layer,
                                          const std::string& indent) {
  const Dims dims = dep_.replication(branch) | dep_.control(branch);
  if (contains<clang::ReturnStmt>(branch)) {
    refuse(branch, "a return under a condition that depends on " +
                       dims_text("threadIdx", dep_.control(branch)) +
                       " (only `if (...) return;` at the kernel's top level is merged)");
  }
  // Worth predicating: a loop inside would run once for all copies.
  const auto loop_inside = [&](const clang::Stmt* at) { return is_loop(at) && !dep_.control(at); };
  const bool sharing =
      any_node(branch->getThen(), loop_inside) || any_node(branch->getElse(), loop_inside);
  if (!sharing || branch->getInit() || branch->getConditionVariable()) {
    return replicate(branch, dims, layer, indent);
  }
  std::string declarations;
  Layer taken = predicates(branch->getCond(), layer, false, nullptr, declarations, indent);
  const std::string then = region(branch->getThen(), taken, indent);
  std::string out = declarations;
  for (const std::string& line : taken.unions) out += line + "\n" + indent;
  out += "if (" + any(taken) + ") " + then;
  if (const clang::Stmt* otherwise = branch->getElse()) {
    std::string others;
    Layer skipped = predicates(branch->getCond(), layer, true, &taken, others, indent);
    const std::string text = region(otherwise, skipped, indent);
    out += "\n" + indent + others;
    for (const std::string& line : skipped.unions) out += line + "\n" + indent;
    out += "if (" + any(skipped) + ") " + text;
  }
  ++stats_.predicated;
  return out;
}

std::string ThreadMergeWalk::replicate(const clang::Stmt* node, Dims dims, Layer& layer,
                                       const std::string& indent, bool guarded) {
  if (contains<clang::ReturnStmt>(node)) {
    refuse(node, "a return inside a statement that depends on " + dims_text("threadIdx", dims));
  }
  if (facts_.has_barrier(node)) {
    refuse(facts_.first_barrier(node), "__syncthreads() inside a statement that depends on " +
                                           dims_text("threadIdx", dims) + " (line " +
                                           std::to_string(text_.kernel().place(node).line) +
                                           "): not every thread of the block would reach it");
  }
  any_node(node, [&](const clang::Stmt* at) {
    if (const auto* decls = llvm::dyn_cast<clang::DeclStmt>(at)) {
      for (const clang::Decl* decl : decls->decls()) {
        if (decl->hasAttr<clang::CUDASharedAttr>()) {
          refuse(at, "a __shared__ declaration inside a statement that depends on " +
                         dims_text("threadIdx", dims) + "; declare it at the kernel's top level");
        }
      }
    }
    return false;
  });
  ++stats_.replicated;
  std::string out;
  for (int c = 0; c < factors_.count(dims); ++c) {
    const std::string g = guarded ? guard(layer, dims, c) : "";
    const std::string text = text_.render(node, CopyRules(*this, dims, c));
    // Braces keep an `else` of the copy visibly its own.
    const bool brace = !g.empty() && llvm::isa<clang::IfStmt>(node);
    out += (c ? "\n" + indent : "") +
           (g.empty() ? text : "if (" + g + ") " + (brace ? "{ " + text + " }" : text));
  }
  return out;
}

}  // namespace gputune::engine
