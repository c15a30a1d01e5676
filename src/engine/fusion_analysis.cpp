// Loop fusion's analysis: each launch of the sequence as a stage (its writes, one per thread,
// and its reads), the chain of leading launches that fuse, the dependence distances between
// them and the halos and shared arrays of each fused prefix.
#include "engine/fusion_analysis.h"

#include <clang/AST/Attr.h>
#include <clang/AST/DeclTemplate.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "engine/call_facts.h"

namespace gputune::engine {
namespace {

// The largest distance fusion follows: farther reads make halos wider than the tile.
constexpr int kMaxDistance = 16;

std::string launch_name(const FusionStage& stage, size_t index) {
  return stage.binding->kernel + " (launch " + std::to_string(index + 1) + ")";
}

std::string extent_text(const std::array<uint32_t, 3>& extent) {
  return std::to_string(extent[0]) + " x " + std::to_string(extent[1]) + " x " +
         std::to_string(extent[2]);
}

// The kernel's scalar parameters spelled as the spec's arguments bound to them, so that two
// kernels' indices compare ("nx" of one and "width" of another are both "@nx").
Affine spelled_as_arguments(const Affine& form, const std::map<std::string, std::string>& names) {
  Affine out;
  for (const auto& [term, poly] : form.terms) {
    for (const auto& [monomial, c] : poly) {
      Monomial renamed;
      for (const std::string& symbol : monomial) {
        const auto found = names.find(symbol);
        renamed.push_back(found == names.end() ? symbol : "@" + found->second);
      }
      std::sort(renamed.begin(), renamed.end());
      out.terms[term][renamed] += c;
    }
  }
  return out;
}

Poly scaled(const Poly& poly, long long factor) {
  Poly out;
  for (const auto& [monomial, c] : poly) {
    if (c * factor != 0) out[monomial] = c * factor;
  }
  return out;
}

Poly minus(const Poly& a, const Poly& b) {
  Poly out = a;
  for (const auto& [monomial, c] : b) {
    out[monomial] -= c;
    if (out[monomial] == 0) out.erase(monomial);
  }
  return out;
}

long long at(const Poly& poly, const Monomial& monomial) {
  const auto found = poly.find(monomial);
  return found == poly.end() ? 0 : found->second;
}

// dx, dy with difference == dx * step_x + dy * step_y; nothing where there are none or they are
// not unique.
std::optional<std::pair<int, int>> distances(const Poly& difference, const Poly& step_x,
                                             const Poly& step_y) {
  if (step_x.empty()) return std::nullopt;
  long long dy = 0;
  Poly rest = difference;
  if (!step_y.empty()) {
    const auto own = std::find_if(step_y.begin(), step_y.end(), [&](const auto& entry) {
      return step_x.find(entry.first) == step_x.end();
    });
    if (own != step_y.end()) {
      const long long value = at(difference, own->first);
      if (value % own->second != 0) return std::nullopt;
      dy = value / own->second;
    } else if (step_x.size() == 1 && step_y.size() == 1 && step_x.begin()->first.empty()) {
      // Both steps are numbers (a row of 64 words): the nearest row.
      const long long row = step_y.begin()->second, value = at(difference, {});
      dy = (value + (value >= 0 ? 1 : -1) * std::llabs(row) / 2) / row;
      if (2 * std::llabs(value - dy * row) >= std::llabs(row)) return std::nullopt;
    } else {
      return std::nullopt;
    }
    rest = minus(difference, scaled(step_y, dy));
  }
  const auto& [monomial, c] = *step_x.begin();
  const long long value = at(rest, monomial);
  if (value % c != 0) return std::nullopt;
  const long long dx = value / c;
  if (minus(rest, scaled(step_x, dx)) != Poly{}) return std::nullopt;
  if (std::llabs(dx) > kMaxDistance || std::llabs(dy) > kMaxDistance) return std::nullopt;
  return std::make_pair(static_cast<int>(dx), static_cast<int>(dy));
}

// The plain `=` whose left side is `access`; null for any other write.
const clang::BinaryOperator* assignment_of(const clang::FunctionDecl* function,
                                           const clang::Expr* access) {
  const clang::BinaryOperator* found = nullptr;
  any_node(function->getBody(), [&](const clang::Stmt* node) {
    const auto* assign = llvm::dyn_cast<clang::BinaryOperator>(node);
    if (assign && assign->getOpcode() == clang::BO_Assign &&
        assign->getLHS()->IgnoreParens() == access) {
      found = assign;
    }
    return found != nullptr;
  });
  return found;
}

// The stage's own facts: its parameters bound, its writes one per thread, its reads of what it
// writes only at the thread's own word.
FusionStage stage_of(const ParsedKernel& kernel, const LaunchBinding& binding) {
  FusionStage stage;
  stage.binding = &binding;
  stage.function = find_kernel_function(kernel, binding.kernel);
  const auto refuse = [&stage](const SourcePlace& place, const std::string& why) {
    stage.refusal = why;
    stage.refusal_place = place;
    return stage;
  };
  if (!stage.function) {
    return refuse({kernel.unit().file_name, 0, 0, ""},
                  "kernel '" + binding.kernel + "' is not a __global__ function of the file");
  }
  if (stage.function->getDescribedFunctionTemplate()) {
    return refuse(kernel.place(stage.function), "a kernel template cannot be fused");
  }
  if (stage.function->getNumParams() != binding.arguments.size()) {
    return refuse(kernel.place(stage.function),
                  "its launch passes " + std::to_string(binding.arguments.size()) +
                      " arguments to its " + std::to_string(stage.function->getNumParams()) +
                      " parameters");
  }
  std::map<std::string, std::string> names;  // parameter -> the spec's argument
  for (unsigned p = 0; p < stage.function->getNumParams(); ++p) {
    names[stage.function->getParamDecl(p)->getNameAsString()] = binding.arguments[p];
  }
  stage.accesses = find_accesses(kernel, stage.function);
  const bool two_d = binding.block[1] > 1 || binding.grid[1] > 1;
  for (const Access& access : stage.accesses) {
    const auto* parameter = llvm::dyn_cast_or_null<clang::ParmVarDecl>(access.array_variable);
    if (!parameter) {
      return refuse(kernel.place(access.expression),
                    "it accesses global memory through `" + access.array +
                        "`, which is not a parameter of the kernel");
    }
    if (!access.write) continue;
    const std::string& array = names[access.array];
    if (access.read) {
      return refuse(kernel.place(access.expression), "it reads and writes " + array +
                                                         " in one access; fusion needs `" +
                                                         access.array + "[...] = value`");
    }
    if (access.indices.size() != 1 || !access.indices[0]) {
      return refuse(kernel.place(access.expression),
                    "the index of its write of " + array + " is not affine in the thread ids");
    }
    const Affine index = spelled_as_arguments(*access.indices[0], names);
    if (index.has_loop_term() || index.coefficient("threadIdx.x").empty() ||
        (two_d && index.coefficient("threadIdx.y").empty())) {
      return refuse(kernel.place(access.expression),
                    "its write of " + array +
                        " is not one word per thread (its index is not the thread's own: " +
                        index.text() + ")");
    }
    const clang::BinaryOperator* assignment = assignment_of(stage.function, access.expression);
    if (!assignment) {
      return refuse(kernel.place(access.expression),
                    "it writes " + array + " other than by a plain `=`");
    }
    const auto [known, fresh] = stage.writes.emplace(array, index);
    if (!fresh && known->second != index) {
      return refuse(kernel.place(access.expression), "it writes " + array + " at two indices (" +
                                                         known->second.text() + ", " +
                                                         index.text() + ")");
    }
    stage.stores.push_back({access.expression, assignment, array});
  }
  // A parallel loop: no thread reads a word another thread of the launch writes.
  for (const Access& access : stage.accesses) {
    if (access.write) continue;
    const auto written = stage.writes.find(names[access.array]);
    if (written == stage.writes.end()) continue;
    if (access.indices.size() != 1 || !access.indices[0] ||
        spelled_as_arguments(*access.indices[0], names) != written->second) {
      return refuse(kernel.place(access.expression),
                    "it reads " + written->first +
                        ", which other threads of the same launch write: the launch is not a "
                        "parallel loop");
    }
  }
  return stage;
}

// Why stage `j` cannot join the chain of stages 0..j-1 (at *where), "" when it can; fills its
// chain reads.
std::string join(const ParsedKernel& kernel, std::vector<FusionStage>& stages, size_t j,
                 SourcePlace* where) {
  FusionStage& stage = stages[j];
  const FusionStage& first = stages[0];
  const std::string name = launch_name(stage, j);
  *where = stage.refusal_place;
  if (!stage.refusal.empty()) return stage.refusal;
  *where = kernel.place(stage.function);
  where->text.clear();
  if (stage.binding->block != first.binding->block) {
    return name + " has block " + extent_text(stage.binding->block) + ", " + launch_name(first, 0) +
           " " + extent_text(first.binding->block) + "; fused launches need the same block";
  }
  if (stage.binding->grid != first.binding->grid) {
    return name + " has grid " + extent_text(stage.binding->grid) + ", " + launch_name(first, 0) +
           " " + extent_text(first.binding->grid) + "; fused launches need the same grid";
  }
  if (stage.binding->block[2] != 1 || stage.binding->grid[2] != 1) {
    return name + " has a third dimension; fusion tiles two";
  }
  std::map<std::string, std::string> names;
  for (unsigned p = 0; p < stage.function->getNumParams(); ++p) {
    names[stage.function->getParamDecl(p)->getNameAsString()] = stage.binding->arguments[p];
  }
  // Its writes may not overwrite what an earlier stage reads or writes.
  for (const auto& [array, form] : stage.writes) {
    for (size_t i = 0; i < j; ++i) {
      const auto& arguments = stages[i].binding->arguments;
      if (std::find(arguments.begin(), arguments.end(), array) != arguments.end()) {
        return name + " writes " + array + ", which " + launch_name(stages[i], i) +
               " also uses; fusion needs each array written once " + "and only read before it is";
      }
    }
  }
  stage.chain_reads.clear();
  for (const Access& access : stage.accesses) {
    if (access.write) continue;
    const std::string& array = names[access.array];
    int writer = -1;
    for (size_t i = 0; i < j; ++i) {
      if (stages[i].writes.count(array)) writer = static_cast<int>(i);
    }
    if (writer < 0) continue;
    const SourcePlace place = kernel.place(access.expression);
    *where = place;
    where->text.clear();
    const std::string what = name + " reads " + array + ", which " +
                             launch_name(stages[writer], writer) + " writes, at `" + place.text +
                             "`: ";
    if (access.indices.size() != 1 || !access.indices[0]) {
      return what + "the index is not affine in the thread ids";
    }
    const Affine written = stages[writer].writes.at(array);
    const Affine difference = spelled_as_arguments(*access.indices[0], names) - written;
    if (!difference.invariant()) {
      return what + "its distance from the write (" + written.text() + ") is not constant";
    }
    const auto d = distances(difference.coefficient(""), written.coefficient("threadIdx.x"),
                             written.coefficient("threadIdx.y"));
    if (!d) {
      return what + "its distance from the write (" + written.text() +
             ") is not a whole number of steps along x and y of at most " +
             std::to_string(kMaxDistance);
    }
    stage.chain_reads.push_back({access.expression, array, writer, d->first, d->second});
  }
  return "";
}

FusionPlan plan_of(const ParsedKernel& kernel, const std::vector<FusionStage>& stages,
                   int launches) {
  FusionPlan plan;
  plan.launches = launches;
  plan.halos.assign(launches, {0, 0});
  // From the last stage back: a writer computes what its readers read of it around their cells.
  for (int s = launches - 1; s >= 0; --s) {
    for (const ChainRead& read : stages[s].chain_reads) {
      auto& halo = plan.halos[read.writer];
      halo[0] = std::max(halo[0], plan.halos[s][0] + std::abs(read.dx));
      halo[1] = std::max(halo[1], plan.halos[s][1] + std::abs(read.dy));
    }
  }
  std::set<std::string> outputs(kernel.unit().outputs.begin(), kernel.unit().outputs.end());
  for (int s = 0; s < launches; ++s) {
    for (const auto& [array, form] : stages[s].writes) {
      int last_reader = -1;
      for (int r = s + 1; r < launches; ++r) {
        for (const ChainRead& read : stages[r].chain_reads) {
          if (read.array == array) last_reader = r;
        }
      }
      if (last_reader < 0) continue;
      FusedIntermediate intermediate;
      intermediate.array = array;
      intermediate.writer = s;
      intermediate.last_reader = last_reader;
      for (unsigned p = 0; p < stages[s].function->getNumParams(); ++p) {
        if (stages[s].binding->arguments[p] != array) continue;
        const clang::QualType element =
            stages[s].function->getParamDecl(p)->getType()->getPointeeType().getUnqualifiedType();
        intermediate.element_type = element.getAsString(kernel.context().getPrintingPolicy());
        intermediate.element_bytes =
            static_cast<uint32_t>(kernel.context().getTypeSizeInChars(element).getQuantity());
      }
      intermediate.global = outputs.count(array) > 0;
      for (size_t l = launches; l < stages.size(); ++l) {
        const auto& arguments = stages[l].binding->arguments;
        intermediate.global |=
            std::find(arguments.begin(), arguments.end(), array) != arguments.end();
      }
      plan.intermediates.push_back(intermediate);
    }
  }
  // Swap arrays: an intermediate takes a free array of its element size, freed after its last
  // reader, so no more arrays than the live ranges need.
  std::vector<std::pair<std::string, int>> swaps;  // element type, free after this stage
  for (FusedIntermediate& intermediate : plan.intermediates) {
    int chosen = -1;
    for (size_t k = 0; k < swaps.size() && chosen < 0; ++k) {
      if (swaps[k].first == intermediate.element_type && swaps[k].second < intermediate.writer) {
        chosen = static_cast<int>(k);
      }
    }
    if (chosen < 0) {
      chosen = static_cast<int>(swaps.size());
      swaps.emplace_back(intermediate.element_type, 0);
    }
    swaps[chosen].second = intermediate.last_reader;
    intermediate.swap = chosen;
  }
  return plan;
}

std::string plan_line(const std::vector<FusionStage>& stages, const FusionPlan& plan) {
  std::string line = "fuse " + std::to_string(plan.launches) + ": one kernel " +
                     stages[0].binding->kernel + kFusedSuffix + "; halo (x, y)";
  for (int s = 0; s < plan.launches; ++s) {
    line += std::string(s ? "," : "") + " " + stages[s].binding->kernel + " " +
            std::to_string(plan.halos[s][0]) + ", " + std::to_string(plan.halos[s][1]);
  }
  for (const FusedIntermediate& intermediate : plan.intermediates) {
    line += "; " + intermediate.array + " in shared memory (swap array " +
            std::to_string(intermediate.swap) + ")" +
            (intermediate.global ? " and stored to global memory (read after the fused launches "
                                   "or an output)"
                                 : " only");
  }
  return line;
}

}  // namespace

const FusionPlan* FusionFacts::plan(int launches) const {
  for (const FusionPlan& plan : plans) {
    if (plan.launches == launches) return &plan;
  }
  return nullptr;
}

uint64_t fused_shared_bytes(const FusionFacts& facts, int fuse,
                            const std::array<uint32_t, 3>& block) {
  const FusionPlan* plan = facts.plan(fuse);
  if (!plan) return 0;
  std::map<int, uint64_t> swaps;
  for (const FusedIntermediate& intermediate : plan->intermediates) {
    const auto& halo = plan->halos[intermediate.writer];
    const uint64_t bytes =
        (block[0] + 2ull * halo[0]) * (block[1] + 2ull * halo[1]) * intermediate.element_bytes;
    swaps[intermediate.swap] = std::max(swaps[intermediate.swap], bytes);
  }
  uint64_t total = 0;
  for (const auto& [swap, bytes] : swaps) total += bytes;
  return total;
}

const clang::FunctionDecl* find_kernel_function(const ParsedKernel& kernel,
                                                const std::string& name) {
  std::vector<const clang::DeclContext*> contexts = {kernel.context().getTranslationUnitDecl()};
  while (!contexts.empty()) {
    const clang::DeclContext* context = contexts.back();
    contexts.pop_back();
    for (const clang::Decl* declaration : context->decls()) {
      if (const auto* space = llvm::dyn_cast<clang::NamespaceDecl>(declaration)) {
        contexts.push_back(space);
        continue;
      }
      const clang::FunctionDecl* function = llvm::dyn_cast<clang::FunctionDecl>(declaration);
      if (const auto* pattern = llvm::dyn_cast<clang::FunctionTemplateDecl>(declaration)) {
        function = pattern->getTemplatedDecl();
      }
      if (function && function->getNameAsString() == name &&
          function->hasAttr<clang::CUDAGlobalAttr>() && function->doesThisDeclarationHaveABody() &&
          kernel.in_main_file(function->getLocation())) {
        return function;
      }
    }
  }
  return nullptr;
}

FusionAnalysis analyse_fusion(const ParsedKernel& kernel) {
  FusionAnalysis analysis;
  const std::vector<LaunchBinding>& launches = kernel.unit().launches;
  if (launches.size() < 2) return analysis;
  for (const LaunchBinding& binding : launches) {
    analysis.stages.push_back(stage_of(kernel, binding));
  }
  std::vector<FusionStage>& stages = analysis.stages;
  FusionFacts& facts = analysis.facts;
  std::string chain;
  for (size_t l = 0; l < stages.size(); ++l) {
    chain += (l ? " -> " : "") + launch_name(stages[l], l);
  }
  facts.lines.push_back("launches: " + chain + "; block " + extent_text(launches[0].block) +
                        ", grid " + extent_text(launches[0].grid));
  if (!stages[0].refusal.empty()) {
    analysis.refusal_place = stages[0].refusal_place;
    analysis.refusal_reason = stages[0].refusal;
  } else {
    facts.fusable = 1;
    for (size_t j = 1; j < stages.size(); ++j) {
      analysis.refusal_reason = join(kernel, stages, j, &analysis.refusal_place);
      if (!analysis.refusal_reason.empty()) break;
      facts.fusable = static_cast<int>(j) + 1;
      std::map<std::pair<std::string, int>, std::array<int, 4>> ranges;  // min/max dx, dy
      for (const ChainRead& read : stages[j].chain_reads) {
        auto [range, fresh] =
            ranges.emplace(std::make_pair(read.array, read.writer),
                           std::array<int, 4>{read.dx, read.dx, read.dy, read.dy});
        auto& r = range->second;
        r = {std::min(r[0], read.dx), std::max(r[1], read.dx), std::min(r[2], read.dy),
             std::max(r[3], read.dy)};
      }
      for (const auto& [key, r] : ranges) {
        facts.lines.push_back(launch_name(stages[j], j) + " reads " + key.first + ", which " +
                              launch_name(stages[key.second], key.second) +
                              " writes, at distances x " + std::to_string(r[0]) + ".." +
                              std::to_string(r[1]) + ", y " + std::to_string(r[2]) + ".." +
                              std::to_string(r[3]));
      }
    }
  }
  if (facts.fusable < 2) facts.fusable = 0;
  if (!analysis.refusal_reason.empty()) {
    const SourcePlace& place = analysis.refusal_place;
    facts.refusal = place.str() + ": " + analysis.refusal_reason +
                    (place.text.empty() ? "" : " (`" + place.text + "`)");
  }
  for (int f = 2; f <= facts.fusable; ++f) {
    facts.plans.push_back(plan_of(kernel, stages, f));
    facts.lines.push_back(plan_line(stages, facts.plans.back()));
  }
  if (!facts.refusal.empty()) {
    const bool first = !stages[0].refusal.empty();
    facts.lines.push_back(first ? "launch 1 cannot begin a fused kernel: " + facts.refusal
                                : "launch " + std::to_string(std::max(facts.fusable, 1) + 1) +
                                      " does not join: " + facts.refusal);
  }
  return analysis;
}

}  // namespace gputune::engine
