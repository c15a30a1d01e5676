#include "core/expression_spelling.h"

#include <cctype>
#include <map>

#include "core/expression.h"

namespace gputune {

const char kListFunction[] = "__gputune_list";
const char kNotInOperator[] = "__gputune_not_in";

namespace {

bool is_word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Words that are operators or literals in Python, C or Fortran-like tuners, and what to write.
const std::map<std::string, std::string>& foreign_words() {
  static const std::map<std::string, std::string> words = {
      {"is", "'=='"},
      {"xor", "'!=' between two conditions"},
      {"mod", "'%'"},
      {"div", "'//' for floor division"},
      {"if", "'condition ? a : b'"},
      {"else", "'condition ? a : b'"},
      {"True", "1"},
      {"False", "0"},
      {"true", "1"},
      {"false", "0"},
  };
  return words;
}

class Respeller {
 public:
  explicit Respeller(const std::string& text) : in_(text) {}

  RespelledExpression run() {
    size_t i = 0;
    while (i < in_.size()) {
      const char c = in_[i];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
        i = copy_number(i);
      } else if (is_word_start(c)) {
        i = word(i);
      } else {
        i = symbol(i);
      }
    }
    for (const Bracket& open : closers_) {
      if (open.closer == ']') {
        throw ExpressionError{"expected ']' to close the list", static_cast<int>(in_.size())};
      }
    }
    return std::move(out_);
  }

 private:
  void emit(const std::string& text, size_t origin) {
    out_.text += text;
    out_.origin.insert(out_.origin.end(), text.size(), static_cast<int>(origin));
  }

  size_t skip_spaces(size_t i) const {
    while (i < in_.size() && std::isspace(static_cast<unsigned char>(in_[i]))) ++i;
    return i;
  }

  // Numbers are copied whole so that the 'e10' of '1e10' is not read as a word.
  size_t copy_number(size_t i) {
    size_t end = i;
    while (end < in_.size() && (is_word_char(in_[end]) || in_[end] == '.')) ++end;
    for (size_t k = i; k < end; ++k) emit(std::string(1, in_[k]), k);
    return end;
  }

  size_t word(size_t i) {
    size_t end = i;
    while (end < in_.size() && is_word_char(in_[end])) ++end;
    const std::string w = in_.substr(i, end - i);
    if (w == "not") {
      size_t next = skip_spaces(end);
      size_t next_end = next;
      while (next_end < in_.size() && is_word_char(in_[next_end])) ++next_end;
      if (in_.compare(next, next_end - next, "in") == 0 && next_end - next == 2) {
        emit(kNotInOperator, i);
        return list_after_in(next_end, i, "not in");
      }
    }
    if (w == "in") {
      emit("in", i);
      return list_after_in(end, i, "in");
    }
    auto foreign = foreign_words().find(w);
    if (foreign != foreign_words().end()) {
      throw ExpressionError{"'" + w + "' is not an operator or name here: write " + foreign->second,
                            static_cast<int>(i)};
    }
    emit(w, i);
    return end;
  }

  size_t list_after_in(size_t end, size_t at, const std::string& op) {
    const size_t open = skip_spaces(end);
    if (open >= in_.size() || (in_[open] != '(' && in_[open] != '[')) {
      throw ExpressionError{"'" + op + "' needs a list after it: write 'x " + op +
                                " (1, 2)' or 'x " + op + " [1, 2]'",
                            static_cast<int>(at)};
    }
    emit(" ", open);
    emit(std::string(kListFunction) + "(", open);
    closers_.push_back({in_[open] == '[' ? ']' : ')', true});
    return open + 1;
  }

  size_t symbol(size_t i) {
    const char c = in_[i];
    const char next = i + 1 < in_.size() ? in_[i + 1] : '\0';
    const char prev = i > 0 ? in_[i - 1] : '\0';
    const int at = static_cast<int>(i);
    if (c == '(') {
      closers_.push_back({')', false});
    } else if (c == ')' || c == ']') {
      if (!closers_.empty() && closers_.back().closer == c) {
        if (closers_.back().list) close_list(i);
        closers_.pop_back();
        emit(")", i);
        return i + 1;
      }
      if (c == ']') throw ExpressionError{"unexpected ']'", at};
      if (!closers_.empty()) throw ExpressionError{"expected ']' before ')'", at};
    } else if (c == '[') {
      throw ExpressionError{"'[' only opens a list after 'in'; group with '(' and ')'", at};
    } else if (c == '=' && next != '=' && prev != '=' && prev != '<' && prev != '>' &&
               prev != '!') {
      throw ExpressionError{"'=' is not an operator here: write '==' to compare", at};
    } else if ((c == '&' || c == '|') && next != c && prev != c) {
      const std::string word = c == '&' ? "and" : "or";
      throw ExpressionError{std::string("'") + c + "' is not an operator here: write '" + word +
                                "' (or '" + c + c + "')",
                            at};
    }
    emit(std::string(1, c), i);
    return i + 1;
  }

  // Python writes a list of one as '(32,)': the trailing comma goes.
  void close_list(size_t at) {
    std::string& text = out_.text;
    size_t end = text.size();
    while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    if (end > 0 && text[end - 1] == ',') --end;
    while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    if (end > 0 && text[end - 1] == '(') {
      throw ExpressionError{"the list after 'in' is empty", static_cast<int>(at)};
    }
    text.resize(end);
    out_.origin.resize(end);
  }

  struct Bracket {
    char closer;
    bool list;  // opened right after 'in'
  };

  const std::string& in_;
  RespelledExpression out_;
  std::vector<Bracket> closers_;  // innermost last
};

}  // namespace

RespelledExpression respell_expression(const std::string& text) { return Respeller(text).run(); }

}  // namespace gputune
