// One name, one thing. Two definitions of a class in one namespace are an ODR violation that
// links without a word (each emits the same weak inline symbols, the linker keeps one of each);
// two files of one name in different stages send every search for the name to two places.
//
// A small tokenizer finds the definitions rather than an LTO build with -Wodr: that build
// links every test binary again with LTO (minutes on two cores) and reports only types whose
// two definitions differ in layout and meet in one link, where this scan takes well under a
// second and sees every definition in the tree, used or not.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// C++ text as identifiers and punctuation, without comments, string and character literals
// (raw strings included) and preprocessor lines, which is all the scan needs to see.
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  bool line_start = true;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '#' && line_start) {  // to the end of the line, continuations included
      while (i < n && text[i] != '\n') i += (text[i] == '\\' && i + 1 < n) ? 2 : 1;
      continue;
    }
    line_start = false;
    if (text.compare(i, 2, "//") == 0) {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
      continue;
    }
    if (c == 'R' && i + 1 < n && text[i + 1] == '"') {  // R"delim( ... )delim"
      const size_t open = text.find('(', i + 2);
      if (open != std::string::npos) {
        const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
        const size_t end = text.find(close, open);
        i = end == std::string::npos ? n : end + close.size();
        continue;
      }
    }
    if (c == '"' || c == '\'') {
      for (++i; i < n && text[i] != c; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    if (is_word_char(c)) {
      const size_t start = i;
      while (i < n && is_word_char(text[i])) ++i;
      out.push_back(text.substr(start, i - start));
      continue;
    }
    if (text.compare(i, 2, "::") == 0) {
      out.push_back("::");
      i += 2;
      continue;
    }
    out.push_back(std::string(1, c));
    ++i;
  }
  return out;
}

// The classes, structs, unions and enums a file defines at namespace scope, by qualified name
// ("gputune::runtime::KernelRules", "gputune::Expression::Impl" for a member defined out of
// line). Anonymous namespaces and function bodies are left out: their types are the file's own.
std::vector<std::string> defined_types(const std::string& text) {
  struct Scope {
    enum Kind { kNamespace, kAnonymous, kLinkage, kOther } kind;
    std::string name;
  };
  const std::vector<std::string> t = tokens(text);
  std::vector<Scope> scopes;
  std::vector<std::string> out;
  auto at_namespace_scope = [&] {
    for (const Scope& s : scopes) {
      if (s.kind != Scope::kNamespace && s.kind != Scope::kLinkage) return false;
    }
    return true;
  };
  auto prefix = [&] {
    std::string p;
    for (const Scope& s : scopes) {
      if (s.kind == Scope::kNamespace) p += s.name + "::";
    }
    return p;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "namespace") {
      std::string name;
      size_t j = i + 1;
      for (; j < t.size() && t[j] != "{" && t[j] != "=" && t[j] != ";"; ++j) name += t[j];
      if (j < t.size() && t[j] == "{") {
        scopes.push_back({name.empty() ? Scope::kAnonymous : Scope::kNamespace, name});
      }
      i = j;
      continue;
    }
    if (t[i] == "extern" && i + 1 < t.size() && t[i + 1] == "{") {  // extern "C" {
      scopes.push_back({Scope::kLinkage, ""});
      ++i;
      continue;
    }
    const bool keyword = t[i] == "class" || t[i] == "struct" || t[i] == "union" || t[i] == "enum";
    const bool after_enum = i > 0 && t[i - 1] == "enum";
    if (keyword && !after_enum) {
      size_t j = i + 1;
      if (t[i] == "enum" && j < t.size() && (t[j] == "class" || t[j] == "struct")) ++j;
      if (j >= t.size() || !is_word_char(t[j][0])) continue;
      std::string name = t[j++];
      while (j + 1 < t.size() && t[j] == "::") {
        name += "::" + t[j + 1];
        j += 2;
      }
      if (j < t.size() && t[j] == "final") ++j;
      bool defines = j < t.size() && t[j] == "{";
      if (j < t.size() && t[j] == ":") {  // a base clause or an enum's underlying type
        while (j < t.size() && t[j] != "{" && t[j] != ";") ++j;
        defines = j < t.size() && t[j] == "{";
      }
      if (!defines) continue;
      if (at_namespace_scope()) out.push_back(prefix() + name);
      scopes.push_back({Scope::kOther, name});
      i = j;
      continue;
    }
    if (t[i] == "{") {
      scopes.push_back({Scope::kOther, ""});
    } else if (t[i] == "}" && !scopes.empty()) {
      scopes.pop_back();
    }
  }
  return out;
}

bool is_source(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".cpp" || ext == ".h" || ext == ".cuh";
}

const fs::path kRoot = test::source_dir();

// Every C++ file of the library, the front ends and the tests, relative to the checkout.
std::vector<fs::path> project_sources() {
  std::vector<fs::path> out;
  for (const char* top : {"src", "include", "python/src", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      if (entry.is_regular_file() && is_source(entry.path())) {
        out.push_back(fs::relative(entry.path(), kRoot));
      }
    }
  }
  return out;
}

TEST(OneName, TheScanFindsDefinitionsAtNamespaceScopeOnly) {
  const std::string text = R"(
#include "a.h"
#define BODY { struct NotAType {}; }
namespace gputune {
struct Plain { struct Nested {}; };
class Derived final : public Base<int, std::pair<int, int>> {};
enum class Kind : int { kA };
struct Declared;
template <class T, typename U = int> struct Template {};
struct Plain* pointer = nullptr;
void f() { struct Local {}; }
struct Plain::Outside {};
const char* kText = "struct InAString {};";
const char* kRaw = R"x(class InARawString {};)x";
// struct InAComment {};
namespace { struct Hidden {}; }
namespace runtime { union Bits { int i; }; }
}  // namespace gputune
namespace other { struct Elsewhere {}; }
)";
  const std::vector<std::string> found = defined_types(text);
  EXPECT_EQ(found, (std::vector<std::string>{"gputune::Plain", "gputune::Derived", "gputune::Kind",
                                             "gputune::Template", "gputune::Plain::Outside",
                                             "gputune::runtime::Bits", "other::Elsewhere"}));
}

TEST(OneName, NoTypeIsDefinedTwiceInANamespace) {
  std::map<std::string, std::set<std::string>> where;
  const std::vector<fs::path> sources = project_sources();
  ASSERT_GT(sources.size(), 300u);
  for (const fs::path& file : sources) {
    for (const std::string& type : defined_types(read_text(kRoot / file))) {
      if (type.rfind("gputune::", 0) == 0) where[type].insert(file.string());
    }
  }
  ASSERT_GT(where.size(), 200u) << "the scan found too few types to be working";
  std::string report;
  for (const auto& [type, files] : where) {
    if (files.size() < 2) continue;
    report += type + " is defined in";
    for (const std::string& file : files) report += " " + file;
    report += "\n";
  }
  EXPECT_TRUE(report.empty()) << report;
}

// A file's name belongs to one folder of src/: a public header (include/gputune/x.h) may share
// it only with the source file that implements it, src/<folder>/x.cpp.
TEST(OneName, NoTwoFoldersHaveAFileOfTheSameName) {
  std::map<std::string, std::set<std::string>> folders;  // file name without extension
  std::map<std::string, std::set<std::string>> files;
  for (const fs::path& file : project_sources()) {
    const std::string top = file.begin()->string();
    if (top != "src" && top != "include") continue;
    const std::string stem = file.stem().string();
    folders[stem].insert(file.parent_path().string());
    files[stem].insert(file.string());
  }
  ASSERT_GT(folders.size(), 100u);
  std::string report;
  for (const auto& [stem, in] : folders) {
    std::set<std::string> src_folders;
    for (const std::string& folder : in) {
      if (folder != "include/gputune") src_folders.insert(folder);
    }
    bool shared = src_folders.size() > 1;
    if (in.count("include/gputune")) {
      for (const std::string& file : files[stem]) {
        if (file.rfind("include/", 0) != 0 && fs::path(file).extension() != ".cpp") shared = true;
      }
    }
    if (!shared) continue;
    report += stem + ":";
    for (const std::string& file : files[stem]) report += " " + file;
    report += "\n";
  }
  EXPECT_TRUE(report.empty()) << report;
}

}  // namespace
}  // namespace gputune
