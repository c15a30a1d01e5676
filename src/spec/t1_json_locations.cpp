#include "spec/t1_json_locations.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace gputune {
namespace {

// A character iterator that remembers how far the parser has read, so that each SAX event
// knows where in the text it happened.
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* at, const char* begin, size_t* furthest)
      : at_(at), begin_(begin), furthest_(furthest) {}
  reference operator*() const { return *at_; }
  TrackingIterator& operator++() {
    ++at_;
    *furthest_ = std::max(*furthest_, static_cast<size_t>(at_ - begin_));
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return at_ == other.at_; }
  bool operator!=(const TrackingIterator& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char* begin_;
  size_t* furthest_;
};

class LocatingHandler : public nlohmann::json_sax<nlohmann::json> {
 public:
  LocatingHandler(const std::string& text, const size_t* furthest,
                  std::map<std::string, size_t>* offsets)
      : text_(text), furthest_(furthest), offsets_(offsets) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    levels_.back().key = escape(name);
    // The lexer has just read the key's closing quote: its opening quote is the key's start.
    size_t at = std::min(*furthest_, text_.size());
    at = at > 0 ? at - 1 : 0;
    while (at > 0 && text_[at] != '"') --at;
    if (at > 0) --at;
    while (at > 0 && text_[at] != '"') --at;
    key_offset_ = at;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Level {
    bool array = false;
    size_t index = 0;
    std::string key;
  };
  static std::string escape(const std::string& name) {
    std::string out;
    for (char c : name) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    return out;
  }
  std::string pointer() const {
    std::string out;
    for (const Level& level : levels_) {
      out += "/" + (level.array ? std::to_string(level.index) : level.key);
    }
    return out;
  }
  // In an array a value is where its token starts: the lexer stands at most one character
  // past the token (a number's look-ahead), so step back over that and the token.
  size_t token_start() const {
    size_t at = std::min(*furthest_, text_.size());
    at = at > 0 ? at - 1 : 0;
    while (at > 0 && std::string(" \t\r\n,]}").find(text_[at]) != std::string::npos) --at;
    if (text_[at] == '"') {
      if (at > 0) --at;
      while (at > 0 && text_[at] != '"') --at;
      return at;
    }
    while (at > 0 && std::string(" \t\r\n,[{:").find(text_[at - 1]) == std::string::npos &&
           text_[at] != '{' && text_[at] != '[') {
      --at;
    }
    return at;
  }
  void record() {
    if (levels_.empty()) {
      (*offsets_)[""] = 0;
      return;
    }
    (*offsets_)[pointer()] = levels_.back().array ? token_start() : key_offset_;
  }
  bool value() {
    record();
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }
  bool open(bool array) {
    record();
    levels_.push_back({array, 0, ""});
    return true;
  }
  bool close() {
    levels_.pop_back();
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }

  const std::string& text_;
  const size_t* furthest_;
  std::map<std::string, size_t>* offsets_;
  std::vector<Level> levels_;
  size_t key_offset_ = 0;
};

}  // namespace

JsonLocations::JsonLocations(const std::string& text, const std::string& path) : path_(path) {
  size_t furthest = 0;
  std::map<std::string, size_t> offsets;
  LocatingHandler handler(text, &furthest, &offsets);
  const char* begin = text.data();
  nlohmann::json::sax_parse(TrackingIterator(begin, begin, &furthest),
                            TrackingIterator(begin + text.size(), begin, &furthest), &handler,
                            nlohmann::json::input_format_t::json, true, true);
  std::vector<size_t> line_starts = {0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  for (const auto& [pointer, offset] : offsets) {
    const auto line = std::upper_bound(line_starts.begin(), line_starts.end(), offset) - 1;
    where_[pointer] = {path, static_cast<int>(line - line_starts.begin()) + 1,
                       static_cast<int>(offset - *line) + 1};
  }
}

SourceLocation JsonLocations::at(const std::string& pointer) const {
  std::string key = pointer;
  while (true) {
    const auto it = where_.find(key);
    if (it != where_.end()) return it->second;
    const size_t slash = key.rfind('/');
    if (slash == std::string::npos || key.empty()) return {path_, 1, 1};
    key = key.substr(0, slash);
  }
}

}  // namespace gputune
