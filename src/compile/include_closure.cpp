#include "compile/include_closure.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "core/sha256.h"
#include "core/text.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

struct Directive {
  std::string name;  // empty: a computed include
  bool quoted = false;
  bool next = false;  // #include_next: any folder of the search may hold the file read
};

// Translation phase 2: a backslash at a line's end joins it to the next (a '#' and a backslash,
// then "include <x>" on the next line, is a directive).
std::string spliced(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\') {
      size_t j = i + 1;
      if (j < source.size() && source[j] == '\r') ++j;
      if (j < source.size() && source[j] == '\n') {
        i = j;
        continue;
      }
    }
    out += source[i];
  }
  return out;
}

// Translation phase 3: each comment is one space ("#/*", a line end, "*/include <x>" is a
// directive). String and character literals are kept and end at their line's end at the latest,
// so that a stray quote (a digit separator, an apostrophe in #if 0 text) hides no more than the
// rest of its line.
std::string without_comments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (quote != 0) {
      out += c;
      if (c == '\\' && next != '\n' && next != '\0') {
        out += next;
        ++i;
      } else if (c == quote || c == '\n') {
        quote = 0;
      }
    } else if (c == '/' && next == '/') {
      out += ' ';
      const size_t end = text.find('\n', i);
      if (end == std::string::npos) break;
      i = end - 1;
    } else if (c == '/' && next == '*') {
      out += ' ';
      const size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) break;
      i = end + 1;
    } else {
      if (c == '"' || c == '\'') quote = c;
      out += c;
    }
  }
  return out;
}

// Spaces, and comments that close on the same line.
size_t skip_blanks(const std::string& line, size_t at) {
  for (;;) {
    at = skip_spaces(line, at);
    if (line.compare(at, 2, "/*") != 0) return at;
    const size_t end = line.find("*/", at + 2);
    if (end == std::string::npos) return at;
    at = end + 2;
  }
}

// The header name at `at` ("name" or <name>) into `d`; false where there is none.
bool header_name(const std::string& line, size_t at, Directive* d) {
  if (at >= line.size() || (line[at] != '"' && line[at] != '<')) return false;
  const size_t close = line.find(line[at] == '"' ? '"' : '>', at + 1);
  if (close == std::string::npos) return false;
  d->quoted = line[at] == '"';
  d->name = line.substr(at + 1, close - at - 1);
  return true;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The directives of one logical line: #include, #include_next and #import ('#' or '%:'), and
// each __has_include(...) / __has_include_next(...) lookup, whose answer changes the code as
// much as an include does.
void line_directives(const std::string& line, std::vector<Directive>* out) {
  size_t at = skip_blanks(line, 0);
  size_t hash = 0;
  if (line.compare(at, 1, "#") == 0) hash = 1;
  if (line.compare(at, 2, "%:") == 0) hash = 2;
  if (hash != 0) {
    at = skip_blanks(line, at + hash);
    const size_t word_end = skip_identifier_chars(line, at);
    const std::string word = line.substr(at, word_end - at);
    if (word == "include" || word == "include_next" || word == "import") {
      Directive d;
      d.next = word == "include_next";
      header_name(line, skip_blanks(line, word_end), &d);
      out->push_back(std::move(d));
    }
  }
  static const std::string kLookup = "__has_include";
  for (size_t found = line.find(kLookup); found != std::string::npos;
       found = line.find(kLookup, found + 1)) {
    if (found > 0 && identifier_char(line[found - 1])) continue;
    size_t end = found + kLookup.size();
    Directive d;
    if (line.compare(end, 5, "_next") == 0) {
      end += 5;
      d.next = true;
    }
    if (end < line.size() && identifier_char(line[end])) continue;
    end = skip_blanks(line, end);
    // Without '(' it asks whether __has_include exists (#ifdef __has_include): no lookup.
    if (end >= line.size() || line[end] != '(') continue;
    header_name(line, skip_blanks(line, end + 1), &d);
    out->push_back(std::move(d));
  }
}

// The directives of a source, over-approximated: read both with comments removed and with the
// lines as written (a comment may open inside a raw string), and inside #if 0 too.
std::vector<Directive> include_directives(const std::string& source) {
  std::vector<Directive> out;
  const std::string text = spliced(source);
  const std::string uncommented = without_comments(text);
  for (const std::string* version : {&text, &uncommented}) {
    std::istringstream lines(*version);
    for (std::string line; std::getline(lines, line);) line_directives(line, &out);
  }
  return out;
}

class Walker {
 public:
  Walker(std::vector<std::string> folders, IncludeClosure* out)
      : folders_(std::move(folders)), out_(out) {}

  void source(const std::string& text, const std::string& folder) {
    for (const Directive& d : include_directives(text)) {
      if (!out_->complete) return;
      if (d.name.empty()) {
        incomplete(
            "a computed #include or __has_include (a macro, not \"file\" or <file>) names no "
            "file the cache can read");
        return;
      }
      std::vector<std::string> search;
      if (d.quoted) search.push_back(folder);
      search.insert(search.end(), folders_.begin(), folders_.end());
      file(d.name, search, d.next);
    }
  }

  // The first folder that holds `name` (every one with `all`: #include_next continues after
  // the folder of the file that says it); the fingerprint notes a name none holds.
  void file(const std::string& name, const std::vector<std::string>& search, bool all = false) {
    bool found = false;
    for (const std::string& folder : search) {
      const fs::path candidate = (fs::path(folder) / name).lexically_normal();
      std::error_code error;
      if (!fs::is_regular_file(candidate, error)) continue;
      read(candidate);
      found = true;
      if (!all) return;
    }
    if (!found) out_->fingerprint += "absent " + name + "\n";
  }

  void read(const fs::path& path) {
    std::error_code error;
    const std::string key = fs::absolute(path, error).lexically_normal().string();
    if (!seen_.insert(key).second) return;
    if (seen_.size() > IncludeClosure::kMaxFiles) {
      incomplete("more than " + std::to_string(IncludeClosure::kMaxFiles) + " included files");
      return;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) {
      out_->fingerprint += "unreadable " + key + "\n";
      return;
    }
    const std::string bytes = text.str();
    bytes_ += bytes.size();
    if (bytes_ > IncludeClosure::kMaxBytes) {
      incomplete("included files of more than " + std::to_string(IncludeClosure::kMaxBytes >> 20) +
                 " MiB");
      return;
    }
    out_->fingerprint += "file " + key + " " + hex(sha256(bytes)) + "\n";
    source(bytes, path.parent_path().string());
  }

 private:
  void incomplete(const std::string& why) {
    out_->complete = false;
    out_->why_incomplete = why;
  }

  std::vector<std::string> folders_;
  IncludeClosure* out_;
  std::set<std::string> seen_;
  size_t bytes_ = 0;
};

// The value of an option spelled "--name=V", "--name V", "-xV" or "-x V" at options[*i].
bool option_value(const std::vector<std::string>& options, size_t* i, const std::string& long_name,
                  const std::string& short_name, std::string* value) {
  const std::string& o = options[*i];
  if (o == long_name || o == short_name) {
    if (*i + 1 >= options.size()) return false;
    *value = options[++*i];
    return true;
  }
  if (o.compare(0, long_name.size() + 1, long_name + "=") == 0) {
    *value = o.substr(long_name.size() + 1);
    return true;
  }
  if (!short_name.empty() && o.size() > short_name.size() &&
      o.compare(0, short_name.size(), short_name) == 0) {
    *value = o.substr(short_name.size());
    if (!value->empty() && (*value)[0] == '=') value->erase(0, 1);
    return true;
  }
  return false;
}

}  // namespace

IncludeClosure include_closure(const CompileRequest& request) {
  IncludeClosure out;
  std::vector<std::string> folders, pre_includes;
  for (size_t i = 0; i < request.options.size(); ++i) {
    std::string value;
    if (option_value(request.options, &i, "--include-path", "-I", &value)) {
      folders.push_back(value);
    } else if (option_value(request.options, &i, "--pre-include", "-include", &value)) {
      pre_includes.push_back(value);
    }
  }
  // Files are named by absolute path: the working folder matters only where it changes which
  // file a name resolves to.
  const std::string working = ".";
  Walker walker(folders, &out);
  std::vector<std::string> search = {working};
  search.insert(search.end(), folders.begin(), folders.end());
  for (const std::string& name : pre_includes) walker.file(name, search);
  walker.source(request.source, working);
  if (!out.complete) out.fingerprint.clear();
  return out;
}

}  // namespace gputune
