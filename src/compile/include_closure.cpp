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
};

// The #include (and #include_next) lines of a source, over-approximated: lines inside comments
// or #if 0 count too.
std::vector<Directive> include_directives(const std::string& source) {
  std::vector<Directive> out;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    size_t at = skip_spaces(line, 0);
    if (at >= line.size() || line[at] != '#') continue;
    at = skip_spaces(line, at + 1);
    if (line.compare(at, 7, "include") != 0) continue;
    at += 7;
    if (line.compare(at, 5, "_next") == 0) at += 5;
    if (at < line.size() &&
        (std::isalnum(static_cast<unsigned char>(line[at])) || line[at] == '_')) {
      continue;  // "#includes", not a directive
    }
    at = skip_spaces(line, at);
    Directive d;
    if (at < line.size() && (line[at] == '"' || line[at] == '<')) {
      const size_t close = line.find(line[at] == '"' ? '"' : '>', at + 1);
      if (close != std::string::npos) {
        d.quoted = line[at] == '"';
        d.name = line.substr(at + 1, close - at - 1);
      }
    }
    out.push_back(std::move(d));
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
        incomplete("a computed #include (#include MACRO) names no file the cache can read");
        return;
      }
      std::vector<std::string> search;
      if (d.quoted) search.push_back(folder);
      search.insert(search.end(), folders_.begin(), folders_.end());
      file(d.name, search);
    }
  }

  // The first folder that holds `name`; the fingerprint notes a name none holds.
  void file(const std::string& name, const std::vector<std::string>& search) {
    for (const std::string& folder : search) {
      const fs::path candidate = (fs::path(folder) / name).lexically_normal();
      std::error_code error;
      if (!fs::is_regular_file(candidate, error)) continue;
      read(candidate);
      return;
    }
    out_->fingerprint += "absent " + name + "\n";
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
