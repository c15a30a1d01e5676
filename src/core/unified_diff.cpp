#include "core/unified_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gputune {
namespace {

constexpr size_t kContext = 3;
constexpr uint64_t kMaxTable = 64ull << 20;  // cells of the LCS table

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start) + "\n\\ No newline at end of file");
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// One line of the edit script: ' ' kept, '-' removed from before, '+' added from after.
struct Edit {
  char kind;
  size_t before, after;  // line indices (the one of the side the line comes from counts)
};

std::vector<Edit> edit_script(const std::vector<std::string>& a,
                              const std::vector<std::string>& b) {
  // Equal head and tail lines are kept without the table.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  const size_t n = a.size() - head - tail, m = b.size() - head - tail;
  std::vector<Edit> script;
  for (size_t i = 0; i < head; ++i) script.push_back({' ', i, i});
  if (static_cast<uint64_t>(n + 1) * (m + 1) > kMaxTable) {
    for (size_t i = 0; i < n; ++i) script.push_back({'-', head + i, head});
    for (size_t j = 0; j < m; ++j) script.push_back({'+', head + n, head + j});
  } else {
    // lcs[i][j]: the longest common subsequence of a[head+i..] and b[head+j..].
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    const auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;) {
      for (size_t j = m; j-- > 0;) {
        at(i, j) = a[head + i] == b[head + j] ? at(i + 1, j + 1) + 1
                                              : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[head + i] == b[head + j]) {
        script.push_back({' ', head + i++, head + j++});
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        script.push_back({'-', head + i++, head + j});  // removals first, as diff -u writes
      } else {
        script.push_back({'+', head + i, head + j++});
      }
    }
  }
  for (size_t k = 0; k < tail; ++k) {
    script.push_back({' ', a.size() - tail + k, b.size() - tail + k});
  }
  return script;
}

std::string range(size_t start, size_t count) {
  // diff -u numbers lines from 1; an empty range names the line before it.
  const size_t first = count == 0 ? start : start + 1;
  return std::to_string(first) + (count == 1 ? "" : "," + std::to_string(count));
}

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name) {
  if (before == after) return "";
  const std::vector<std::string> a = lines_of(before), b = lines_of(after);
  const std::vector<Edit> script = edit_script(a, b);
  std::string out = "--- " + before_name + "\n+++ " + after_name + "\n";
  std::vector<size_t> changes;
  for (size_t e = 0; e < script.size(); ++e) {
    if (script[e].kind != ' ') changes.push_back(e);
  }
  for (size_t c = 0; c < changes.size(); ++c) {
    // Changes with at most twice the context between them share a hunk.
    const size_t first = changes[c];
    while (c + 1 < changes.size() && changes[c + 1] - changes[c] <= 2 * kContext + 1) ++c;
    const size_t begin = first >= kContext ? first - kContext : 0;
    const size_t end = std::min(script.size(), changes[c] + 1 + kContext);
    size_t removed = 0, added = 0;
    std::string body;
    for (size_t e = begin; e < end; ++e) {
      const Edit& edit = script[e];
      body += edit.kind + (edit.kind == '+' ? b[edit.after] : a[edit.before]) + "\n";
      if (edit.kind != '+') ++removed;
      if (edit.kind != '-') ++added;
    }
    out += "@@ -" + range(script[begin].before, removed) + " +" +
           range(script[begin].after, added) + " @@\n" + body;
  }
  return out;
}

}  // namespace gputune
