#include "core/text.h"

#include <algorithm>
#include <cctype>

namespace gputune {

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool is_identifier(const std::string& text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) {
    return false;
  }
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

namespace {

template <typename Predicate>
size_t skip_while(const std::string& text, size_t at, Predicate keep) {
  while (at < text.size() && keep(static_cast<unsigned char>(text[at]))) ++at;
  return std::min(at, text.size());
}

}  // namespace

size_t skip_spaces(const std::string& text, size_t at) {
  return skip_while(text, at, [](unsigned char c) { return std::isspace(c) != 0; });
}

size_t skip_digits(const std::string& text, size_t at) {
  return skip_while(text, at, [](unsigned char c) { return c >= '0' && c <= '9'; });
}

size_t skip_identifier_chars(const std::string& text, size_t at) {
  return skip_while(text, at, [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

size_t first_invalid_utf8(const std::string& text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = byte(i);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    }
    i += length;
  }
  return std::string::npos;
}

namespace {

// Whether an assignment "name=" (not "name==") starts at `at`, after spaces.
bool assignment_starts(const std::string& text, size_t at) {
  at = skip_spaces(text, at);
  if (at >= text.size() ||
      !(std::isalpha(static_cast<unsigned char>(text[at])) || text[at] == '_')) {
    return false;
  }
  const size_t eq = skip_spaces(text, skip_identifier_chars(text, at));
  return eq + 1 < text.size() && text[eq] == '=' && text[eq + 1] != '=';
}

}  // namespace

std::vector<std::string> split_assignments(const std::string& text) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',' && assignment_starts(text, i + 1)) {
      out.emplace_back();
    } else {
      out.back() += text[i];
    }
  }
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& candidate : known) {
    const size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  if (best.empty() || best_distance > limit) return "";
  return " (did you mean '" + best + "'?)";
}

}  // namespace gputune
