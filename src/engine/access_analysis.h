#pragma once
// The method's index analysis (engine-internal): every global-memory access of a kernel, its
// index as an affine form over the thread and block ids and the loops' iterations, its class,
// whether a warp's threads touch neighbouring words, and what the threads and blocks share.
// The facts stage_shared rewrites by, and what `gputune transforms` prints (AccessFact).
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/parsed_kernel.h"

namespace gputune::engine {

// A polynomial with integer coefficients over the kernel's invariant symbols: its scalar
// parameters (never assigned), blockDim and gridDim. A monomial is its sorted symbols; the empty
// one is the constant 1.
using Monomial = std::vector<std::string>;
using Poly = std::map<Monomial, long long>;
using Spelling = std::function<std::string(const std::string&)>;

// sum of coefficient * term: a term is a thread or block id ("threadIdx.x", "blockIdx.y") or a
// loop's iteration count (the loop's iterator's name; the iterator is start + step * count),
// "" for the invariant part.
struct Affine {
  std::map<std::string, Poly> terms;

  static Affine constant(long long value);
  static Affine symbol(const std::string& name);
  static Affine term(const std::string& name);
  // The coefficient of a term (an empty polynomial where it is absent).
  Poly coefficient(const std::string& term) const;
  bool invariant() const;  // only the "" term
  bool has_loop_term() const;
  bool has_id_term() const;
  // CUDA text that computes it; `name` (where given) spells each term and symbol
  // ("threadIdx.x" -> "a", "rows" -> "(long long)rows").
  std::string text(const Spelling& name = nullptr) const;
  bool operator==(const Affine& other) const { return terms == other.terms; }
  bool operator!=(const Affine& other) const { return terms != other.terms; }
};
Affine operator+(const Affine& a, const Affine& b);
Affine operator-(const Affine& a, const Affine& b);
// Only where one side is invariant (nothing otherwise).
std::optional<Affine> operator*(const Affine& a, const Affine& b);
std::string poly_text(const Poly& poly, const Spelling& name = nullptr);
bool is_one(const Poly& poly);

// `left op right`, op one of < <= > >= == !=.
struct Comparison {
  Affine left;
  clang::BinaryOperatorKind op;
  Affine right;
};

// A loop around an access. A counted `for (v = start; cond; v += step)` (v left alone in its
// body) has its iterator, start and step (invariant forms), and its condition as comparisons of
// affine forms over its count (the term named after the iterator) where it is one; a loop of
// another kind has none of them.
struct LoopFacts {
  const clang::Stmt* loop = nullptr;
  const clang::VarDecl* iterator = nullptr;
  std::optional<Affine> start, step;
  std::optional<std::vector<Comparison>> condition;
};

// One global-memory access: a subscript or dereference of a pointer that is not __shared__.
struct Access {
  const clang::FunctionDecl* kernel = nullptr;
  const clang::Expr* expression = nullptr;  // the whole access: `a[i][j]`, `*(a + i)`
  std::string array;                        // the pointer parameter (or variable) it goes through
  const clang::VarDecl* array_variable = nullptr;
  bool read = false, write = false;
  // One index per subscript, outermost first; nothing where the index is not affine.
  std::vector<std::optional<Affine>> indices;
  // The loops around it, outermost first, and the kernel's top-level statement holding it.
  std::vector<const clang::Stmt*> loops;
  std::vector<LoopFacts> loop_facts;  // parallel to loops
  const clang::Stmt* top_statement = nullptr;
  // The conditions it runs under (the ifs around it, an earlier `if (...) return;` at the top
  // level) as one conjunction of comparisons of affine forms; nothing where one is not.
  std::optional<std::vector<Comparison>> guard;
};

enum class IndexClass { kConstant, kIds, kLoop, kUnknown };
enum class Coalescing { kCoalesced, kUniform, kUncoalesced, kUnknown };
const char* class_text(IndexClass c);
const char* coalescing_text(Coalescing c);

IndexClass index_class(const Access& access);
Coalescing coalescing(const Access& access);
// Whether the words of a segment that one warp touches once are used again: by the threads of
// the block along y (a unit step in threadIdx.y) or by later iterations of a loop (a unit step
// in its count). Staging an uncoalesced access pays only then.
bool segment_reused(const Access& access);

// The global accesses of the kernels, in the order they run (the kernel's locals are replaced
// by their reaching definitions).
std::vector<Access> find_accesses(const ParsedKernel& kernel);
// Those of one kernel function of the file.
std::vector<Access> find_accesses(const ParsedKernel& kernel, const clang::FunctionDecl* function);

// The facts as the engine reports them.
std::vector<AccessFact> access_facts(const ParsedKernel& kernel);

}  // namespace gputune::engine
