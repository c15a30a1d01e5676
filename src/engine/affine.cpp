// Affine forms over the thread and block ids and loop counts, with polynomial coefficients in
// the kernel's invariant symbols (access_analysis.h).
#include <algorithm>

#include "engine/access_analysis.h"

namespace gputune::engine {
namespace {

void normalise(Poly* poly) {
  for (auto it = poly->begin(); it != poly->end();) {
    it = it->second == 0 ? poly->erase(it) : std::next(it);
  }
}

void normalise(Affine* affine) {
  for (auto it = affine->terms.begin(); it != affine->terms.end();) {
    normalise(&it->second);
    it = it->second.empty() ? affine->terms.erase(it) : std::next(it);
  }
}

Poly poly_product(const Poly& a, const Poly& b) {
  Poly out;
  for (const auto& [ma, ca] : a) {
    for (const auto& [mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      out[m] += ca * cb;
    }
  }
  normalise(&out);
  return out;
}

bool is_id_term(const std::string& term) {
  return term.rfind("threadIdx.", 0) == 0 || term.rfind("blockIdx.", 0) == 0;
}

// Where a term is printed: thread ids, block ids, loop counts, then the invariant part.
int term_rank(const std::string& term) {
  if (term.rfind("threadIdx.", 0) == 0) return 0;
  if (term.rfind("blockIdx.", 0) == 0) return 1;
  return term.empty() ? 3 : 2;
}

}  // namespace

Affine Affine::constant(long long value) {
  Affine affine;
  if (value != 0) affine.terms[""][{}] = value;
  return affine;
}

Affine Affine::symbol(const std::string& name) {
  Affine affine;
  affine.terms[""][{name}] = 1;
  return affine;
}

Affine Affine::term(const std::string& name) {
  Affine affine;
  affine.terms[name][{}] = 1;
  return affine;
}

Poly Affine::coefficient(const std::string& term) const {
  const auto found = terms.find(term);
  return found == terms.end() ? Poly{} : found->second;
}

bool Affine::invariant() const {
  return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty());
}

bool Affine::has_loop_term() const {
  return std::any_of(terms.begin(), terms.end(), [](const auto& entry) {
    return !entry.first.empty() && !is_id_term(entry.first);
  });
}

bool Affine::has_id_term() const {
  return std::any_of(terms.begin(), terms.end(),
                     [](const auto& entry) { return is_id_term(entry.first); });
}

Affine operator+(const Affine& a, const Affine& b) {
  Affine out = a;
  for (const auto& [term, poly] : b.terms) {
    for (const auto& [monomial, c] : poly) out.terms[term][monomial] += c;
  }
  normalise(&out);
  return out;
}

Affine operator-(const Affine& a, const Affine& b) {
  Affine negated = b;
  for (auto& entry : negated.terms) {
    for (auto& monomial : entry.second) monomial.second = -monomial.second;
  }
  return a + negated;
}

std::optional<Affine> operator*(const Affine& a, const Affine& b) {
  if (!a.invariant() && !b.invariant()) return std::nullopt;
  const Affine& scale = a.invariant() ? a : b;
  const Affine& other = a.invariant() ? b : a;
  const Poly factor = scale.coefficient("");
  Affine out;
  for (const auto& [term, poly] : other.terms) out.terms[term] = poly_product(poly, factor);
  normalise(&out);
  return out;
}

bool is_one(const Poly& poly) {
  return poly.size() == 1 && poly.begin()->first.empty() && poly.begin()->second == 1;
}

std::string poly_text(const Poly& poly, const Spelling& name) {
  if (poly.empty()) return "0";
  std::string text;
  // Monomials of fewer symbols first; the constant last.
  std::vector<std::pair<Monomial, long long>> ordered(poly.begin(), poly.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    if (a.first.empty() != b.first.empty()) return b.first.empty();
    return a.first.size() < b.first.size();
  });
  for (const auto& [monomial, c] : ordered) {
    long long magnitude = c < 0 ? -c : c;
    text += text.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
    std::string product;
    if (magnitude != 1 || monomial.empty()) product = std::to_string(magnitude);
    for (const std::string& symbol : monomial) {
      product += (product.empty() ? "" : "*") + (name ? name(symbol) : symbol);
    }
    text += product;
  }
  return text;
}

std::string Affine::text(const Spelling& spelling) const {
  if (terms.empty()) return "0";
  std::vector<std::string> order;
  for (const auto& entry : terms) order.push_back(entry.first);
  std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return term_rank(a) < term_rank(b);
  });
  std::string text;
  for (const std::string& term : order) {
    const Poly& poly = terms.at(term);
    const std::string name = spelling && !term.empty() ? spelling(term) : term;
    std::string part;
    if (term.empty()) {
      part = poly_text(poly, spelling);
    } else if (is_one(poly)) {
      part = name;
    } else if (poly.size() == 1) {
      part = poly_text(poly, spelling) + "*" + name;
    } else {
      part = "(" + poly_text(poly, spelling) + ")*" + name;
    }
    if (!text.empty() && part[0] == '-') {
      text += " - " + part.substr(1);
    } else {
      text += (text.empty() ? "" : " + ") + part;
    }
  }
  return text;
}

}  // namespace gputune::engine
