// The access analysis as the engine reports it (AccessFact): each access's class, coalescing,
// what the threads and blocks share, and what each of the method's rules decided.
#include <algorithm>

#include "engine/access_analysis.h"
#include "engine/call_facts.h"
#include "engine/stage_shared.h"

namespace gputune::engine {
namespace {

std::string index_text(const Access& access) {
  if (access.indices.size() == 1) {
    return access.indices[0] ? access.indices[0]->text() : "?";
  }
  std::string text;
  for (const auto& index : access.indices) text += "[" + (index ? index->text() : "?") + "]";
  return text;
}

// The dimensions ('x', 'y') along which a kernel's threads or blocks are told apart.
std::string used_dimensions(const ParsedKernel& kernel, const clang::FunctionDecl* function) {
  std::string used;
  any_node(function->getBody(), [&](const clang::Stmt* node) {
    const auto* expression = llvm::dyn_cast<clang::Expr>(node);
    if (!expression) return false;
    const auto component = kernel.builtin_component(expression);
    if (component &&
        (component->first == Builtin::kThreadIdx || component->first == Builtin::kBlockIdx) &&
        used.find(component->second) == std::string::npos) {
      used += component->second;
    }
    return false;
  });
  std::sort(used.begin(), used.end());
  return used;
}

bool independent_of(const Access& access, const std::string& term) {
  for (const auto& index : access.indices) {
    if (!index || !index->coefficient(term).empty()) return false;
  }
  return true;
}

std::string coalescing_decision(const Access& access, Coalescing verdict) {
  switch (verdict) {
    case Coalescing::kCoalesced:
      return "coalescing: coalesced, neighbouring threads in x touch neighbouring words";
    case Coalescing::kUniform:
      return "coalescing: uniform, every thread of a warp touches the same word";
    case Coalescing::kUnknown:
      return "coalescing: the index is not affine in the ids and loop counts: left alone";
    case Coalescing::kUncoalesced:
      break;
  }
  const Poly step = access.indices.back()->coefficient("threadIdx.x");
  if (access.indices.size() > 1 && (step.empty() || is_one(step))) {
    return "coalescing: uncoalesced, a higher subscript differs between neighbouring threads "
           "in x";
  }
  return "coalescing: uncoalesced, neighbouring threads in x are " + poly_text(step) +
         " words apart";
}

}  // namespace

std::vector<AccessFact> access_facts(const ParsedKernel& kernel) {
  std::vector<AccessFact> facts;
  std::map<const clang::FunctionDecl*, std::string> dimensions;
  const std::vector<Access> accesses = find_accesses(kernel);
  for (const Access& access : accesses) {
    AccessFact fact;
    fact.place = kernel.place(access.expression);
    fact.kernel = access.kernel->getNameAsString();
    fact.array = access.array;
    fact.read = access.read;
    fact.write = access.write;
    fact.index = index_text(access);
    const IndexClass kind = index_class(access);
    fact.index_class = class_text(kind);
    const Coalescing verdict = coalescing(access);
    fact.coalescing = coalescing_text(verdict);
    fact.decisions.push_back(coalescing_decision(access, verdict));
    if (stage_candidate(kernel, access)) {
      fact.decisions.push_back(stage_shared_decision(kernel, accesses, access));
    }
    if (kind == IndexClass::kUnknown) {
      facts.push_back(std::move(fact));
      continue;
    }
    if (!dimensions.count(access.kernel)) {
      dimensions[access.kernel] = used_dimensions(kernel, access.kernel);
    }
    const std::string& used = dimensions[access.kernel];
    std::vector<std::string> merges;
    for (const char dim : used) {
      const std::string d(1, dim);
      if (independent_of(access, "threadIdx." + d)) {
        fact.shared.push_back("threads along " + d);
        if (access.read && !access.write) merges.push_back("thread_merge_" + d);
      }
    }
    for (const char dim : used) {
      const std::string d(1, dim);
      if (independent_of(access, "blockIdx." + d)) {
        fact.shared.push_back("blocks along " + d);
        if (access.read && !access.write) merges.push_back("block_merge_" + d);
      }
    }
    if (access.write && !fact.shared.empty()) {
      fact.decisions.push_back("merge: threads or blocks write the same word; no merge rule");
    } else if (!merges.empty()) {
      std::string list;
      for (const std::string& merge : merges) list += (list.empty() ? "" : ", ") + merge;
      fact.decisions.push_back("merge: shared, so " + list +
                               " loads it once for the threads or blocks merged (thread merge "
                               "in a register, block merge through shared memory)");
    }
    facts.push_back(std::move(fact));
  }
  return facts;
}

}  // namespace gputune::engine
